package api_test

import (
	"errors"
	"fmt"

	"github.com/kinformer/kinformer/api"
)

// A label selector as kubectl -l and ?labelSelector= write it.
func ExampleParseSelector() {
	sel, err := api.ParseSelector("tier in (db, api), app = web, !canary")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sel) // canonical: sorted by key, blanks dropped
	fmt.Println(sel.Matches(map[string]string{"app": "web", "tier": "api"}))
	fmt.Println(sel.Matches(map[string]string{"app": "web", "tier": "api", "canary": "true"}))
	// Output:
	// app=web,!canary,tier in (api,db)
	// true
	// false
}

// != matches an object that does not have the label at all.
func ExampleSelector_Matches() {
	sel, _ := api.ParseSelector("env!=prod")
	fmt.Println(sel.Matches(map[string]string{"env": "prod"}))
	fmt.Println(sel.Matches(map[string]string{"env": "dev"}))
	fmt.Println(sel.Matches(nil))
	// Output:
	// false
	// true
	// true
}

// A bad selector says where it went wrong; Msg is the bare message a real
// kube-apiserver answers with.
func ExampleSelectorError() {
	_, err := api.ParseSelector("app in (web")
	fmt.Println(err)
	var se *api.SelectorError
	if errors.As(err, &se) {
		fmt.Println(se.Msg)
	}
	// Output:
	// unable to parse requirement: found '', expected: ',' or ')' at position 11 of "app in (web"
	// unable to parse requirement: found '', expected: ',' or ')'
}

// A ReplicaSet's spec.selector as a Selector.
func ExampleLabelSelector_AsSelector() {
	ls := &api.LabelSelector{
		MatchLabels: map[string]string{"app": "web"},
		MatchExpressions: []api.LabelSelectorRequirement{
			{Key: "tier", Operator: api.LabelSelectorOpNotIn, Values: []string{"db"}},
		},
	}
	sel, err := ls.AsSelector()
	fmt.Println(sel, err)

	var none *api.LabelSelector
	sel, _ = none.AsSelector()
	fmt.Println(sel.Matches(map[string]string{"app": "web"}))
	// Output:
	// app=web,tier notin (db) <nil>
	// false
}

// A field selector; a field the object lacks counts as "".
func ExampleParseFieldSelector() {
	sel, err := api.ParseFieldSelector("status.phase=Running,spec.nodeName!=")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sel.Matches(api.Fields{"status.phase": "Running", "spec.nodeName": "node-1"}))
	fmt.Println(sel.Matches(api.Fields{"status.phase": "Running"}))
	// Output:
	// true
	// false
}

// RequiresExactMatch and escaping: a value may hold , = and \ once escaped.
func ExampleOneTermEqualFieldSelector() {
	sel := api.OneTermEqualFieldSelector("metadata.name", "a=b")
	fmt.Println(sel)
	fmt.Println(sel.RequiresExactMatch("metadata.name"))
	// Output:
	// metadata.name=a\=b
	// a=b true
}
