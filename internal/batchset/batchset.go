// Package batchset holds sets of batch indexes: the batches of a job
// claimed or done, and their encoding in a checkpoint.
package batchset

import (
	"encoding/binary"
	"math/bits"
)

// Set is a set of batch indexes that grows as needed. The zero Set is
// empty.
type Set []uint64

// Has reports whether i is in b.
func (b Set) Has(i int) bool {
	w := i >> 6
	return w < len(b) && b[w]>>(uint(i)&63)&1 != 0
}

// Add adds i to b.
func (b *Set) Add(i int) {
	w := i >> 6
	for w >= len(*b) {
		*b = append(*b, 0)
	}
	(*b)[w] |= 1 << (uint(i) & 63)
}

// Remove removes i from b.
func (b Set) Remove(i int) {
	if w := i >> 6; w < len(b) {
		b[w] &^= 1 << (uint(i) & 63)
	}
}

// Count is the number of members of b.
func (b Set) Count() int {
	c := 0
	for _, w := range b {
		c += bits.OnesCount64(w)
	}
	return c
}

// Max returns the largest member, or -1 for the empty set.
func (b Set) Max() int {
	for w := len(b) - 1; w >= 0; w-- {
		if b[w] != 0 {
			return w<<6 + 63 - bits.LeadingZeros64(b[w])
		}
	}
	return -1
}

// Clone returns a copy of b.
func (b Set) Clone() Set { return append(Set(nil), b...) }

// Bytes encodes the set for n batches as ceil(n/8) bytes, bit i%8 of byte
// i/8 standing for batch i. Members at n or above are dropped.
func (b Set) Bytes(n int) []byte {
	out := make([]byte, (n+7)/8)
	var word [8]byte
	for w := 0; w*8 < len(out) && w < len(b); w++ {
		binary.LittleEndian.PutUint64(word[:], b[w])
		copy(out[w*8:], word[:])
	}
	if r := n % 8; r != 0 {
		out[len(out)-1] &= byte(1)<<r - 1
	}
	return out
}

// FromBytes decodes p: the inverse of Bytes.
func FromBytes(p []byte) Set {
	b := make(Set, (len(p)+7)/8)
	var word [8]byte
	for w := range b {
		word = [8]byte{}
		copy(word[:], p[w*8:])
		b[w] = binary.LittleEndian.Uint64(word[:])
	}
	return b
}
