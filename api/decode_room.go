package api

import "unsafe"

// Room to decode in.
//
// encoding/json decodes a JSON array into a slice by appending, so the
// slice's array is reallocated as it fills: the five conditions of a
// running pod pass through arrays with room for 1, 2, 4 and 8 of them
// before CompactAfterDecode copies them into one of exactly 5. All but the
// last copy are garbage as soon as the pod is decoded: about 1.7 KB per
// pod, more than the rest of the decoding leaves behind, and during an
// informer's initial list of thousands of pods that garbage is what the
// heap's peak is made of (docs/performance.md).
//
// A DecodeRoom is a decoder's reusable array for those conditions. Before a
// pod is decoded, LendRoom points its conditions at the room, emptied;
// encoding/json then appends into it without reallocating. After,
// ReturnRoom copies what was decoded into an array of exactly its length,
// so the pod keeps nothing of the room, and the room is ready for the next
// pod. A pod with more conditions than the room holds simply outgrows it
// (encoding/json reallocates as usual, and the pod never shares the room).
//
// listwatch lends each of its decoding goroutines a room
// (TestDecodeRoom_SameValuesAsAPlainDecode shows the values are those of a
// plain decode). A DecodeRoom is not safe for concurrent use: one per
// decoding goroutine, one pod at a time, and every LendRoom followed by
// ReturnRoom before the room is lent again.
type DecodeRoom struct {
	conditions []PodCondition
}

// roomForConditions is how many conditions the room holds: more than a
// pod has in practice (a running pod has five).
const roomForConditions = 16

// LendRoom prepares p, which must not hold conditions yet (a new pod), to
// be decoded with r's room for its conditions.
func (p *Pod) LendRoom(r *DecodeRoom) {
	if r.conditions == nil {
		r.conditions = make([]PodCondition, roomForConditions)
	}
	// encoding/json decodes an element into whatever the slice's array
	// already holds there (it merges, as into any struct), so the room is
	// cleared before every lending.
	clear(r.conditions)
	p.Status.Conditions = r.conditions[:0]
}

// ReturnRoom takes back the room lent to p: conditions decoded into it are
// copied into an array of exactly their length, and conditions the JSON
// did not have leave p's field nil, as a plain decode would. Conditions
// that were null, empty, or too many for the room are not in the room and
// stay as decoded.
func (p *Pod) ReturnRoom(r *DecodeRoom) {
	c := p.Status.Conditions
	if unsafe.SliceData(c) != unsafe.SliceData(r.conditions) {
		return // never in the room, or outgrown
	}
	if len(c) == 0 {
		p.Status.Conditions = nil // the JSON had no conditions
		return
	}
	exact := make([]PodCondition, len(c))
	copy(exact, c)
	p.Status.Conditions = exact
}
