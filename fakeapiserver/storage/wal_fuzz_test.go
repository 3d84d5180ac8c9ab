package storage

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzWALReader: whatever bytes a log segment holds, the reader never
// panics, and what it recovers is a prefix of valid records: encoding the
// records it returns gives back exactly the first `valid` bytes, and it
// either read everything or says where and why it stopped.
func FuzzWALReader(f *testing.F) {
	good := []byte(walMagic)
	for _, rec := range []walRecord{
		{typ: walAdded, rv: 1, key: "/registry/namespaces/default", obj: []byte(`{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"default","resourceVersion":"1"}}`)},
		{typ: walModified, rv: 2, key: "/registry/pods/default/p", obj: []byte(`{"kind":"Pod"}`)},
		{typ: walDeleted, rv: 3, key: "/registry/apps/replicasets/default/rs", obj: nil},
		{typ: walRV, rv: 1028},
		{typ: walClose, rv: 1028},
	} {
		good = appendFrame(good, &rec)
	}
	f.Add(good)
	f.Add(good[:len(good)-3])
	f.Add(good[:len(walMagic)+5])
	f.Add([]byte(walMagic))
	f.Add([]byte{})
	f.Add([]byte("KFWAL00"))
	corrupt := bytes.Clone(good)
	corrupt[len(walMagic)+frameHeader+3] ^= 1
	f.Add(corrupt)
	huge := append([]byte(walMagic), 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0)
	f.Add(huge)
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, valid, err := decodeFrames(data, walMagic)
		if valid < 0 || valid > len(data) {
			t.Fatalf("valid = %d of %d bytes", valid, len(data))
		}
		if err == nil && valid != len(data) {
			t.Fatalf("no error, but only %d of %d bytes read", valid, len(data))
		}
		var ce *corruptError
		if err != nil && (!errors.As(err, &ce) || ce.Offset != int64(valid)) {
			t.Fatalf("error %v does not say where the good prefix ends (%d)", err, valid)
		}
		var again []byte
		if valid > 0 {
			again = []byte(walMagic)
		}
		for i := range recs {
			again = appendFrame(again, &recs[i])
		}
		if !bytes.Equal(again, data[:valid]) {
			t.Fatalf("the recovered records re-encode to %q, not the prefix %q", again, data[:valid])
		}
		// Reading the good prefix alone finds the same records and no error.
		recs2, valid2, err2 := decodeFrames(data[:valid], walMagic)
		if err2 != nil || valid2 != valid || len(recs2) != len(recs) {
			t.Fatalf("the good prefix reads back as %d records, %d bytes, %v", len(recs2), valid2, err2)
		}
	})
}
