package fastdecode

import (
	"unsafe"

	"github.com/kinformer/kinformer/api"
)

// Room to decode in.
//
// encoding/json (and onepass, which stores what it stores) decodes a JSON
// array into a slice by appending, so the slice's array is reallocated as
// it fills: the five conditions of a running pod pass through arrays with
// room for 1, 2, 4 and 8 of them before Compact copies them into one of
// exactly 5. All but the last copy are garbage as soon as the pod is
// decoded: about 1.7 KB per pod, more than the rest of the decoding leaves
// behind, and during an informer's initial list of thousands of pods that
// garbage is what the heap's peak is made of (docs/performance.md).
//
// A room is a decoding goroutine's reusable array for those conditions.
// Before a pod is decoded, lend points its conditions at the room, emptied;
// the decoder then appends into it without reallocating. After, giveBack
// copies what was decoded into an array of exactly its length, so the pod
// keeps nothing of the room, and the room is ready for the next pod. A pod
// with more conditions than the room holds simply outgrows it (the decoder
// reallocates as usual, and the pod never shares the room).
//
// Each Decoder has one (TestRoom_SameValuesAsAPlainDecode shows the values
// are those of a plain decode). A room is not safe for concurrent use: one
// per decoding goroutine, one pod at a time, and every lend followed by
// giveBack before the room is lent again.
type room struct {
	conditions []api.PodCondition
}

// roomForConditions is how many conditions the room holds: more than a
// pod has in practice (a running pod has five).
const roomForConditions = 16

// lend prepares p, which must not hold conditions yet (a new pod), to be
// decoded with the room for its conditions.
func (r *room) lend(p *api.Pod) {
	if r.conditions == nil {
		r.conditions = make([]api.PodCondition, roomForConditions)
	}
	// A decoder decodes an element into whatever the slice's array already
	// holds there (it merges, as into any struct), so the room is cleared
	// before every lending.
	clear(r.conditions)
	p.Status.Conditions = r.conditions[:0]
}

// giveBack takes back the room lent to p: conditions decoded into it are
// copied into an array of exactly their length, and conditions the JSON
// did not have leave p's field nil, as a plain decode would. Conditions
// that were null, empty, or too many for the room are not in the room and
// stay as decoded.
func (r *room) giveBack(p *api.Pod) {
	c := p.Status.Conditions
	if unsafe.SliceData(c) != unsafe.SliceData(r.conditions) {
		return // never in the room, or outgrown
	}
	if len(c) == 0 {
		p.Status.Conditions = nil // the JSON had no conditions
		return
	}
	exact := make([]api.PodCondition, len(c))
	copy(exact, c)
	p.Status.Conditions = exact
}
