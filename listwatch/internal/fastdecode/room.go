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
// A room is a decoding goroutine's reusable arrays for those conditions,
// and for the two other lists a pod decodes by appending: its owner
// references and its containers. Before a pod is decoded, lend points each
// of its lists at the room's array for it, emptied; the decoder then
// appends into it without reallocating. After, giveBack copies what was
// decoded into an array of exactly its length, so the pod keeps nothing of
// the room, and the room is ready for the next pod. When the pod is for a
// read-only cache, the owner references and containers are instead the
// list a recent pod had, if it had the same (share.go). A pod with more
// elements than the room holds simply outgrows it (the decoder reallocates
// as usual, the pod never shares the room, and compaction trims it).
//
// Each Decoder has one (TestRoom_SameValuesAsAPlainDecode shows the values
// are those of a plain decode). A room is not safe for concurrent use: one
// per decoding goroutine, one pod at a time, and every lend followed by
// giveBack before the room is lent again.
type room struct {
	conditions []api.PodCondition
	owners     []api.OwnerReference
	containers []api.Container
}

// roomForConditions is how many conditions the room holds: more than a
// pod has in practice (a running pod has five). It holds as many owner
// references and containers.
const roomForConditions = 16

// lend prepares p, which must not hold conditions, owner references or
// containers yet (a new pod), to be decoded with the room for them.
func (r *room) lend(p *api.Pod) {
	if r.conditions == nil {
		r.conditions = make([]api.PodCondition, roomForConditions)
		r.containers = make([]api.Container, roomForConditions)
	}
	// A decoder decodes an element into whatever the slice's array already
	// holds there (it merges, as into any struct), so the room is cleared
	// before every lending.
	clear(r.conditions)
	clear(r.containers)
	p.Status.Conditions = r.conditions[:0]
	p.Spec.Containers = r.containers[:0]
	r.lendMeta(&p.ObjectMeta)
}

// lendMeta prepares the metadata of a new object to be decoded with the
// room for its owner references (a pod's, or a PartialObjectMetadata's).
func (r *room) lendMeta(m *api.ObjectMeta) {
	if r.owners == nil {
		r.owners = make([]api.OwnerReference, roomForConditions)
	}
	clear(r.owners) // the pointers of the last object's references too
	m.OwnerReferences = r.owners[:0]
}

// giveBack takes back the room lent to p: lists decoded into it are copied
// into arrays of exactly their length (or, if shared, owner references and
// containers are a recent pod's equal list), and lists the JSON did not
// have leave p's field nil, as a plain decode would. Lists that were null,
// empty, or too long for the room are not in the room and stay as decoded.
func (r *room) giveBack(p *api.Pod, shared bool) {
	p.Status.Conditions = fromRoom(p.Status.Conditions, r.conditions, nil)
	share := (func([]api.Container) []api.Container)(nil)
	if shared {
		share = sharedContainerList
	}
	p.Spec.Containers = fromRoom(p.Spec.Containers, r.containers, share)
	r.giveBackMeta(&p.ObjectMeta, shared)
}

// giveBackMeta is giveBack for what lendMeta lent.
func (r *room) giveBackMeta(m *api.ObjectMeta, shared bool) {
	share := (func([]api.OwnerReference) []api.OwnerReference)(nil)
	if shared {
		share = sharedOwnerRefs
	}
	m.OwnerReferences = fromRoom(m.OwnerReferences, r.owners, share)
}

// fromRoom is got, a list that was lent room: nil if the JSON had none, a
// copy of exactly its length or the list share gives, or got itself if it
// is not in the room.
func fromRoom[T any](got, room []T, share func([]T) []T) []T {
	if unsafe.SliceData(got) != unsafe.SliceData(room) {
		return got // never in the room, or outgrown
	}
	if len(got) == 0 {
		return nil // the JSON had none
	}
	if share != nil {
		return share(got)
	}
	return append(make([]T, 0, len(got)), got...)
}
