package onepass

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// needsLook, the eight-bytes-at-a-time test of readString, says yes
// exactly when one of the eight bytes is one the byte table marks: words
// made of every byte value at every position, and random words.
func TestNeedsLook_AgreesWithTheByteTable(t *testing.T) {
	check := func(w uint64) {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], w)
		want := false
		for _, c := range b {
			want = want || stringByte[c] != plainByte
		}
		if got := needsLook(w); got != want {
			t.Fatalf("needsLook(%q) = %v, want %v", b, got, want)
		}
	}
	plain := binary.LittleEndian.Uint64([]byte("abcdefgh"))
	for c := range 256 {
		for pos := range 8 {
			shift := uint(8 * pos)
			check(plain&^(0xff<<shift) | uint64(c)<<shift)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		check(r.Uint64())
		check(r.Uint64() & 0x7f7f7f7f7f7f7f7f) // ASCII only, where the quote and backslash tests matter most
	}
	t.Log("8 positions x 256 byte values, and 200,000 random words: the word test and the byte table agree")
}
