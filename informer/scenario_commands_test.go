package informer

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/fakeapiserver"
	"github.com/kinformer/kinformer/listwatch"
	"github.com/kinformer/kinformer/trace"
)

// run executes one command and returns what it prints, or an error if the
// command is wrong or an expectation does not hold.
func (e *scEnv) run(command string) ([]string, error) {
	args := strings.Fields(command)
	if len(args) == 0 {
		return nil, errors.New("empty command")
	}
	cmd, args := args[0], args[1:]
	switch cmd {
	case "server":
		return e.cmdServer(args)
	case "informer":
		return e.cmdInformer(args)
	case "handler":
		return e.cmdHandler(args)
	case "start":
		return e.start()
	case "create", "update", "label", "delete":
		return e.cmdWrite(cmd, args)
	case "drop-watches", "compact", "fail", "delay", "drop-event":
		return e.cmdFault(cmd, args)
	case "tick":
		d, err := scDuration(args, "tick D")
		if err != nil {
			return nil, err
		}
		return e.tick(d), nil
	case "block", "release":
		if len(args) != 1 || e.handlers[args[0]] == nil {
			return nil, fmt.Errorf("usage: %s HANDLER (a handler added with \"handler\")", cmd)
		}
		e.handlers[args[0]].setBlocked(cmd == "block")
		return e.settle(), nil
	case "pause", "resume":
		if e.gate == nil {
			return nil, fmt.Errorf("%s: the informer has not started", cmd)
		}
		e.gate.setPaused(cmd == "pause")
		return e.settle(), nil
	case "work":
		return e.work(), nil
	case "fail-reconcile":
		return e.cmdFailReconcile(args)
	case "trace":
		if err := e.out.setTrace(args); err != nil {
			return nil, err
		}
		return []string{e.out.shownStages()}, nil
	case "state", "rv", "cache", "queue", "handlers", "workqueue":
		return append(e.settle(), e.state(cmd)...), nil
	case "expect":
		return e.expect(args)
	}
	return nil, fmt.Errorf("unknown command %q (the commands are listed in scenario_test.go)", cmd)
}

func (e *scEnv) cmdServer(args []string) ([]string, error) {
	if e.srv != nil {
		return nil, errors.New("server: must come before any command that uses the server")
	}
	for _, a := range args {
		k, v, _ := strings.Cut(a, "=")
		switch k {
		case "history":
			n, err := strconv.Atoi(v)
			if err != nil {
				return nil, fmt.Errorf("server: history=%q: %v", v, err)
			}
			e.serverOpts.History = n
		case "bookmarks":
			d, err := time.ParseDuration(v)
			if err != nil {
				return nil, fmt.Errorf("server: bookmarks=%q: %v", v, err)
			}
			e.serverOpts.BookmarkInterval = d
		default:
			return nil, fmt.Errorf("server: unknown option %q (history=N, bookmarks=D)", a)
		}
	}
	e.server()
	return nil, nil
}

func (e *scEnv) cmdInformer(args []string) ([]string, error) {
	if e.inf != nil {
		return nil, errors.New("informer: must come before handler and start")
	}
	for _, a := range args {
		k, v, _ := strings.Cut(a, "=")
		switch {
		case a == "pods":
			e.resource = listwatch.Pods
		case a == "configmaps":
			e.resource = listwatch.ConfigMaps
		case a == "real":
			e.queueKind = RealFIFOQueue
		case a == "watchlist":
			e.watchList = true
		case k == "resync":
			d, err := time.ParseDuration(v)
			if err != nil {
				return nil, fmt.Errorf("informer: resync=%q: %v", v, err)
			}
			e.resync = d
		default:
			return nil, fmt.Errorf("informer: unknown option %q (pods, configmaps, real, resync=D, watchlist)", a)
		}
	}
	inf := e.informer()
	queue := "DeltaFIFO"
	if inf.queueKind == RealFIFOQueue {
		queue = "RealFIFO"
		if inf.realFIFO == ClientGo136() {
			queue = "RealFIFO (1.36 modes)"
		}
	}
	list := "list then watch"
	if inf.useWatchList {
		list = "streaming list (sendInitialEvents)"
	}
	who := map[Pipeline]string{Articles: "the articles' informer", Today: "today's informer"}[inf.pipeline]
	return []string{fmt.Sprintf("informer: %s: %s in default, %s, resync %v, %s", who, e.resource.Resource, queue, e.resync, list)}, nil
}

func (e *scEnv) cmdHandler(args []string) ([]string, error) {
	if len(args) == 0 || e.handlers[args[0]] != nil {
		return nil, errors.New("usage: handler NAME [resync=D] [feeds] [blocked] (a new NAME)")
	}
	h := &scHandler{name: args[0], env: e}
	opts := HandlerOptions{Name: h.name}
	for _, a := range args[1:] {
		k, v, _ := strings.Cut(a, "=")
		switch {
		case a == "feeds":
			for _, other := range e.handlers {
				if other.feeds {
					return nil, fmt.Errorf("handler: %s already feeds the work queue; only one may", other.name)
				}
			}
			h.feeds = true
		case a == "blocked":
			h.setBlocked(true)
		case k == "resync":
			d, err := time.ParseDuration(v)
			if err != nil {
				return nil, fmt.Errorf("handler: resync=%q: %v", v, err)
			}
			opts.ResyncPeriod = &d
		default:
			return nil, fmt.Errorf("handler: unknown option %q (resync=D, feeds, blocked)", a)
		}
	}
	inf := e.informer()
	late := inf.HasSynced() || e.informerDone != nil
	reg, err := inf.AddEventHandlerWithOptions(h, opts)
	if err != nil {
		return nil, err
	}
	h.reg = reg
	e.handlers[h.name] = h
	if !late {
		return nil, nil
	}
	return append([]string{fmt.Sprintf("%s added late: the cache is replayed to it (%d objects)", h.name, len(inf.GetStore().ListKeys()))}, e.settle()...), nil
}

// cmdWrite changes an object on the server through its Go API.
func (e *scEnv) cmdWrite(cmd string, args []string) ([]string, error) {
	if len(args) < 2 || (args[0] != "pod" && args[0] != "configmap") {
		return nil, fmt.Errorf("usage: %s pod|configmap NAME [k=v ...]", cmd)
	}
	kind, name, kvs := args[0], args[1], args[2:]
	resource := map[string]string{"pod": "pods", "configmap": "configmaps"}[kind]
	srv := e.server()
	var obj api.Object
	var err error
	switch cmd {
	case "create":
		obj, err = srv.Create(scObject(kind, name, scKVs(kvs)))
	case "update":
		var cur api.Object
		if cur, err = srv.Get(resource, api.NamespaceDefault, name); err == nil {
			scSetKVs(cur, scKVs(kvs))
			obj, err = srv.Update(cur)
		}
	case "label":
		if len(kvs) != 1 || !strings.Contains(kvs[0], "=") {
			return nil, errors.New("usage: label pod|configmap NAME k=v")
		}
		k, v, _ := strings.Cut(kvs[0], "=")
		patch := fmt.Sprintf(`{"metadata":{"labels":{%q:%q}}}`, k, v)
		obj, err = srv.Patch(resource, api.NamespaceDefault, name, fakeapiserver.MergePatchType, []byte(patch))
	case "delete":
		obj, err = srv.Delete(resource, api.NamespaceDefault, name)
	}
	if err != nil {
		return append([]string{fmt.Sprintf("%s failed: %v", cmd, err)}, e.settle()...), nil
	}
	past := map[string]string{"create": "created", "update": "updated", "label": "labelled", "delete": "deleted"}[cmd]
	line := fmt.Sprintf("server: %s %s", past, scDescribe(obj))
	return append([]string{line}, e.settle()...), nil
}

func scObject(kind, name string, kvs map[string]string) api.Object {
	meta := api.ObjectMeta{Namespace: api.NamespaceDefault, Name: name}
	var obj api.Object
	if kind == "pod" {
		obj = &api.Pod{ObjectMeta: meta, Spec: api.PodSpec{Containers: []api.Container{{Name: "app", Image: "busybox:1.36"}}}}
	} else {
		obj = &api.ConfigMap{ObjectMeta: meta}
	}
	scSetKVs(obj, kvs)
	return obj
}

// scSetKVs sets a pod's labels or a configmap's data to kvs.
func scSetKVs(obj api.Object, kvs map[string]string) {
	switch o := obj.(type) {
	case *api.Pod:
		o.Labels = kvs
	case *api.ConfigMap:
		o.Data = kvs
	}
}

func scKVs(args []string) map[string]string {
	if len(args) == 0 {
		return nil
	}
	m := map[string]string{}
	for _, a := range args {
		k, v, _ := strings.Cut(a, "=")
		m[k] = v
	}
	return m
}

func (e *scEnv) cmdFault(cmd string, args []string) ([]string, error) {
	srv := e.server()
	var line string
	switch cmd {
	case "drop-watches":
		srv.CloseWatches()
		line = "server: every watch closed"
	case "compact":
		srv.CompactHistory()
		line = "server: history compacted at rv " + srv.ResourceVersion()
	case "delay":
		d, err := scDuration(args, "delay D")
		if err != nil {
			return nil, err
		}
		srv.SetWatchDelay(d)
		line = fmt.Sprintf("server: watch frames delayed by %v", d)
	case "fail":
		ft, err := scFault(args)
		if err != nil {
			return nil, err
		}
		ft.Resource = e.resource.Resource
		srv.FailRequests(ft)
		line = fmt.Sprintf("server: the next %d %s request(s) fail with %d", ft.Count, scOr(ft.Verb, "any"), ft.Code)
	case "drop-event":
		if len(args) != 3 {
			return nil, errors.New("usage: drop-event ADDED|MODIFIED|DELETED pod|configmap NAME")
		}
		typ, resource, name := api.EventType(args[0]), args[1]+"s", args[2]
		var dropped atomic.Bool
		srv.DropEvents(func(ev fakeapiserver.Event) bool {
			return ev.Type == typ && ev.Resource == resource && ev.Name == name && dropped.CompareAndSwap(false, true)
		})
		line = fmt.Sprintf("server: the next %s event of %s/%s will not reach open watches", typ, api.NamespaceDefault, name)
	}
	return append([]string{line}, e.settle()...), nil
}

// scFault parses "fail VERB CODE [N] [retry=D]".
func scFault(args []string) (fakeapiserver.Fault, error) {
	usage := errors.New("usage: fail list|watch|any CODE [N] [retry=D]")
	if len(args) < 2 {
		return fakeapiserver.Fault{}, usage
	}
	ft := fakeapiserver.Fault{Verb: args[0], Count: 1}
	if ft.Verb == "any" {
		ft.Verb = ""
	}
	code, err := strconv.Atoi(args[1])
	if err != nil || http.StatusText(code) == "" {
		return ft, usage
	}
	ft.Code = code
	for _, a := range args[2:] {
		if v, ok := strings.CutPrefix(a, "retry="); ok {
			if ft.RetryAfter, err = time.ParseDuration(v); err != nil {
				return ft, usage
			}
			continue
		}
		if ft.Count, err = strconv.Atoi(a); err != nil || ft.Count < 1 {
			return ft, usage
		}
	}
	return ft, nil
}

func (e *scEnv) cmdFailReconcile(args []string) ([]string, error) {
	if len(args) < 1 || len(args) > 2 {
		return nil, errors.New("usage: fail-reconcile KEY [N]")
	}
	n := 1
	if len(args) == 2 {
		var err error
		if n, err = strconv.Atoi(args[1]); err != nil || n < 1 {
			return nil, errors.New("usage: fail-reconcile KEY [N]")
		}
	}
	key := scKey(args[0])
	e.failNext[key] += n
	return []string{fmt.Sprintf("the next %d reconcile(s) of %s fail", e.failNext[key], key)}, nil
}

// scMaxRetries is article 004's handleErr limit: a key is retried while
// NumRequeues is below it, then dropped.
const scMaxRetries = 5

// work is the stepped worker: article 004's processNextItem, one key at a
// time while a key is ready, settling after each.
func (e *scEnv) work() []string {
	out := e.settle()
	worked := false
	for e.wq.Len() > 0 {
		worked = true
		// The worker runs on this goroutine, so its events are recorded
		// as it goes: take them in its order (get, reconcile, retry or
		// forget, done) rather than by stage.
		key, _ := e.wq.Get()
		out = append(out, e.out.take()...)
		obj, exists, _ := e.informer().GetIndexer().GetByKey(key)
		switch {
		case e.failNext[key] > 0:
			e.failNext[key]--
			e.wqTracer.Warn("reconcile failed", trace.Key(key), trace.Reason("fail-reconcile"))
			out = append(out, e.out.take()...)
			if e.wq.NumRequeues(key) < scMaxRetries {
				e.wq.AddRateLimited(key)
			} else {
				e.wqTracer.Warn("giving up", trace.Key(key), trace.Reason(fmt.Sprintf("NumRequeues is %d: Forget it and drop it", scMaxRetries)))
				out = append(out, e.out.take()...)
				e.wq.Forget(key)
			}
		case exists:
			e.wqTracer.Event("reconcile", trace.Key(key), trace.RV(obj.GetResourceVersion()))
			out = append(out, e.out.take()...)
			e.wq.Forget(key)
		default:
			e.wqTracer.Event("reconcile", trace.Key(key), trace.Reason("not in the cache: deleted"))
			out = append(out, e.out.take()...)
			e.wq.Forget(key)
		}
		out = append(out, e.out.take()...)
		e.wq.Done(key)
		out = append(out, e.settle()...)
	}
	if !worked {
		out = append(out, "work: nothing ready")
	}
	return out
}

func scDuration(args []string, usage string) (time.Duration, error) {
	if len(args) != 1 {
		return 0, errors.New("usage: " + usage)
	}
	d, err := time.ParseDuration(args[0])
	if err != nil {
		return 0, fmt.Errorf("usage: %s: %v", usage, err)
	}
	return d, nil
}

// scKey makes "web" into "default/web".
func scKey(k string) string {
	if strings.Contains(k, "/") {
		return k
	}
	return api.NamespaceDefault + "/" + k
}
