package job

import (
	"encoding/binary"
	"math/bits"
)

// bitset is a set of batch indexes that grows as needed.
type bitset []uint64

func (b bitset) has(i int) bool {
	w := i >> 6
	return w < len(b) && b[w]>>(uint(i)&63)&1 != 0
}

func (b *bitset) add(i int) {
	w := i >> 6
	for w >= len(*b) {
		*b = append(*b, 0)
	}
	(*b)[w] |= 1 << (uint(i) & 63)
}

func (b bitset) remove(i int) {
	if w := i >> 6; w < len(b) {
		b[w] &^= 1 << (uint(i) & 63)
	}
}

func (b bitset) count() int {
	c := 0
	for _, w := range b {
		c += bits.OnesCount64(w)
	}
	return c
}

// max returns the largest member, or -1 for the empty set.
func (b bitset) max() int {
	for w := len(b) - 1; w >= 0; w-- {
		if b[w] != 0 {
			return w<<6 + 63 - bits.LeadingZeros64(b[w])
		}
	}
	return -1
}

func (b bitset) clone() bitset { return append(bitset(nil), b...) }

// bytes encodes the set for n batches as ceil(n/8) bytes, bit i%8 of byte
// i/8 standing for batch i. Members at n or above are dropped.
func (b bitset) bytes(n int) []byte {
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

// bitsetFrom decodes bytes: the inverse of bytes.
func bitsetFrom(p []byte) bitset {
	b := make(bitset, (len(p)+7)/8)
	var word [8]byte
	for w := range b {
		word = [8]byte{}
		copy(word[:], p[w*8:])
		b[w] = binary.LittleEndian.Uint64(word[:])
	}
	return b
}
