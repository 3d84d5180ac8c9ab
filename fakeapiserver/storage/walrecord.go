package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// The on-disk record, shared by the write-ahead log (wal.go) and snapshots
// (snapshot.go).
//
// A file is an 8-byte magic ("KFWAL002" for a log segment, "KFSNAP02" for a
// snapshot) followed by frames:
//
//	length  uint32, little endian: the payload's length
//	crc     uint32, little endian: CRC-32 (Castagnoli) of the payload
//	payload length bytes:
//	  type      1 byte (walAdded, walModified, ...)
//	  rv        uint64, little endian
//	  key       uvarint length + bytes: the key ("/registry/pods/default/web")
//	  value     the rest: the value's bytes as stored (Object.Bytes)
//
// The length is not covered by the checksum, but a wrong length makes the
// checksum fail (or points past the end: a torn tail), so either way the
// reader stops there. Everything before the first bad frame is good.

const (
	walMagic  = "KFWAL002"
	snapMagic = "KFSNAP02"
	// The magics of the format before the storage package, whose frames
	// also named the resource: a directory written by it is refused, not
	// truncated.
	oldWALMagic  = "KFWAL001"
	oldSnapMagic = "KFSNAP01"

	frameHeader = 8         // length + crc
	minPayload  = 1 + 8 + 1 // type, rv, an empty key
)

// Record types. The first three are committed events; the others mark the
// log's own history.
const (
	walAdded    byte = 1
	walModified byte = 2
	walDeleted  byte = 3
	// walRV: the counter moved to rv without a write (a restart after a
	// crash skips ahead, see recover.go). Must be durable before any later rv.
	walRV byte = 4
	// walClose: the server closed cleanly at rv; nothing after it was handed out.
	walClose byte = 5
	// walSnapHeader opens a snapshot: rv is the snapshot's resourceVersion,
	// key the first log segment to replay after it (decimal).
	walSnapHeader byte = 6
	// walSnapEnd closes a snapshot: rv is the number of objects in it.
	walSnapEnd byte = 7
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// walRecord is one decoded frame.
type walRecord struct {
	typ byte
	rv  uint64
	key string
	obj []byte
}

// appendFrame appends rec's frame to b.
func appendFrame(b []byte, rec *walRecord) []byte {
	start := len(b)
	b = append(b, make([]byte, frameHeader)...)
	b = append(b, rec.typ)
	b = binary.LittleEndian.AppendUint64(b, rec.rv)
	b = binary.AppendUvarint(b, uint64(len(rec.key)))
	b = append(b, rec.key...)
	b = append(b, rec.obj...)
	payload := b[start+frameHeader:]
	binary.LittleEndian.PutUint32(b[start:], uint32(len(payload)))
	binary.LittleEndian.PutUint32(b[start+4:], crc32.Checksum(payload, crcTable))
	return b
}

// frameSize is how many bytes appendFrame adds for rec.
func frameSize(rec *walRecord) int {
	return frameHeader + 1 + 8 + uvarintLen(len(rec.key)) + len(rec.key) + len(rec.obj)
}

func uvarintLen(n int) int {
	var b [binary.MaxVarintLen64]byte
	return binary.PutUvarint(b[:], uint64(n))
}

// corruptError says where and why a file stops being readable.
type corruptError struct {
	Offset int64  // the byte offset of the first bad frame (or of the magic)
	Reason string // "torn frame header", "checksum mismatch", ...
}

func (e *corruptError) Error() string {
	return fmt.Sprintf("bad record at byte %d: %s", e.Offset, e.Reason)
}

// decodeFrames reads the frames of a file whose magic is magic. It returns
// every record up to the first bad frame, valid (the length of the good
// prefix: truncating the file there leaves only good records) and, if it
// stopped early, a *corruptError. An empty file is valid and holds nothing.
// It never panics and never allocates more than len(data) for a record,
// whatever the bytes say.
func decodeFrames(data []byte, magic string) (recs []walRecord, valid int, err error) {
	if len(data) == 0 {
		return nil, 0, nil
	}
	if len(data) < len(magic) || string(data[:len(magic)]) != magic {
		return nil, 0, &corruptError{Offset: 0, Reason: fmt.Sprintf("missing magic %q", magic)}
	}
	off := len(magic)
	for off < len(data) {
		rest := data[off:]
		if len(rest) < frameHeader {
			return recs, off, &corruptError{Offset: int64(off), Reason: "torn frame header"}
		}
		n := binary.LittleEndian.Uint32(rest)
		if uint64(n) > uint64(len(rest)-frameHeader) {
			return recs, off, &corruptError{Offset: int64(off), Reason: fmt.Sprintf("torn frame: %d payload bytes announced, %d present", n, len(rest)-frameHeader)}
		}
		payload := rest[frameHeader : frameHeader+int(n)]
		if crc32.Checksum(payload, crcTable) != binary.LittleEndian.Uint32(rest[4:]) {
			return recs, off, &corruptError{Offset: int64(off), Reason: "checksum mismatch"}
		}
		rec, perr := decodePayload(payload)
		if perr != nil {
			return recs, off, &corruptError{Offset: int64(off), Reason: perr.Error()}
		}
		recs = append(recs, rec)
		off += frameHeader + int(n)
	}
	return recs, off, nil
}

func decodePayload(p []byte) (walRecord, error) {
	var rec walRecord
	if len(p) < minPayload {
		return rec, errors.New("payload too short")
	}
	rec.typ = p[0]
	if rec.typ < walAdded || rec.typ > walSnapEnd {
		return rec, fmt.Errorf("unknown record type %d", rec.typ)
	}
	rec.rv = binary.LittleEndian.Uint64(p[1:])
	p = p[9:]
	var ok bool
	if rec.key, p, ok = readString(p); !ok {
		return rec, errors.New("bad key field")
	}
	rec.obj = p
	return rec, nil
}

func readString(p []byte) (string, []byte, bool) {
	n, k := binary.Uvarint(p)
	// k != uvarintLen: an over-long encoding; the writer never makes one.
	if k <= 0 || n > uint64(len(p)-k) || k != uvarintLen(int(n)) {
		return "", nil, false
	}
	return string(p[k : k+int(n)]), p[k+int(n):], true
}
