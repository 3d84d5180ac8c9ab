package onepass_test

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/kinformer/kinformer/internal/onepass"
)

// A watch frame decoded as listwatch decodes it: the object goes straight
// into the value the interface holds, the fields the type does not have
// are stepped over (checked, not kept), and the result is what
// json.Unmarshal gives.
func ExampleUnmarshal() {
	type pod struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Phase string `json:"phase"`
	}
	frame := []byte(`{"type":"MODIFIED","object":{"metadata":{"name":"web-1","managedFields":[{"manager":"kubelet"}]},"spec":{"containers":[{"name":"c"}]},"phase":"Running"}}`)

	var fast, std struct {
		Type   string `json:"type"`
		Object any    `json:"object"`
	}
	fast.Object, std.Object = new(pod), new(pod)
	if err := onepass.Unmarshal(frame, &fast); err != nil {
		fmt.Println(err)
	}
	if err := json.Unmarshal(frame, &std); err != nil {
		fmt.Println(err)
	}
	fmt.Printf("%s %+v\n", fast.Type, *fast.Object.(*pod))
	fmt.Println("same as encoding/json:", reflect.DeepEqual(fast, std))

	// Bad input fails, as it does for encoding/json.
	fmt.Println(onepass.Unmarshal([]byte(`{"type":"MODIFIED","object":{"metadata":{]}}`), &fast))
	// Output:
	// MODIFIED {Metadata:{Name:web-1} Phase:Running}
	// same as encoding/json: true
	// onepass: invalid character ']' looking for beginning of object key string at offset 41
}
