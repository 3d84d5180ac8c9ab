package listwatch

import (
	"context"
	"io"

	"github.com/kinformer/kinformer/api"
	"github.com/kinformer/kinformer/listwatch/internal/fastdecode"
)

// The fast form of the seam (Config.Decoder DecodeFast, the default). Each
// function does what its plain twin in decode.go does, through
// listwatch/internal/fastdecode, and falls back on the twin for any frame
// or item the fast decoder refuses: the plain decode's error, worded by
// encoding/json, is the one the caller sees (and, were the plain decode
// to succeed where the fast one failed, its object).

// decodeWatchFast is decodeWatchPlain with each frame decoded by a
// fastdecode.Decoder and compacted (for a read-only cache if shared), and,
// once frames queue up, on up to workers goroutines (fastdecode.Watch).
func decodeWatchFast(ctx context.Context, w *streamWatcher, frames *watchDecoder, workers int, shared bool) {
	fw := fastdecode.Watch[Event]{
		Frames:  fastFrames{frames},
		Workers: workers,
		Decode: func(fd *fastdecode.Decoder, line []byte, n int) (Event, error) {
			f := frame{Object: frames.resource.New()}
			err := fd.Unmarshal(line, &f, f.Object, shared)
			ev, err := frames.event(f, line, err)
			if err != nil {
				ev, err = frames.decodeFrame(line, n) // the plain decode says what is wrong
				if err == nil && ev.Object != nil {
					fastdecode.Compact(ev.Object)
				}
			}
			return ev, err
		},
		Send:     func(ev Event, err error) bool { return w.send(ctx, ev, err) },
		Ctx:      ctx,
		Done:     w.done,
		Cutter:   &w.wg,
		Parallel: &w.parallel,
	}
	fw.Run()
}

// fastFrames is a watchDecoder as fastdecode sees it.
type fastFrames struct{ d *watchDecoder }

func (f fastFrames) Next() ([]byte, error) { return f.d.nextFrame() }
func (f fastFrames) Cut() int              { return f.d.cut }
func (f fastFrames) Buffered() bool        { return f.d.frames.buffered() }
func (f fastFrames) HasFrame() bool        { return f.d.frames.hasFrame() }
func (f fastFrames) Max() int              { return f.d.frames.max }

// decodeListFast is decodeListPlain as the body streams in: items cut out
// one by one and decoded by a fastdecode.Decoder, after the first
// fastdecode.ParallelListAfter on up to workers goroutines, and compacted,
// for a read-only cache if shared (fastdecode.List). Its errors say where
// in the list it went wrong.
func decodeListFast(body io.Reader, r Resource, workers int, shared bool) (*ObjectList, error) {
	meta, items, err := fastdecode.List(body, workers, func(fd *fastdecode.Decoder, raw []byte) (api.Object, error) {
		obj := r.New()
		if err := fd.Value(raw, obj, shared); err != nil {
			// Decode again, into a fresh object, with json.Unmarshal: its
			// error is the one to report. (Were it to succeed where the
			// fast decoder failed, which FuzzUnmarshal has never found,
			// its object is used, compacted: the item is not lost.)
			if obj, err = decodeItem(raw, r); err != nil {
				return nil, err
			}
			fastdecode.Compact(obj)
		} else {
			r.setKind(obj)
		}
		return obj, nil
	})
	if err != nil {
		return nil, err
	}
	return &ObjectList{ListMeta: meta, Items: items}, nil
}

// decodeObjectFast is decodeObjectPlain, then compaction: a Get's answer
// may be kept as long as a cached object.
func decodeObjectFast(body io.Reader, obj api.Object, r Resource) error {
	if err := decodeObjectPlain(body, obj, r); err != nil {
		return err
	}
	fastdecode.Compact(obj)
	return nil
}
