package batchset

import "testing"

func TestBitset(t *testing.T) {
	var b Set
	for _, i := range []int{0, 5, 63, 64, 200} {
		b.Add(i)
	}
	if b.Count() != 5 || b.Max() != 200 || !b.Has(63) || b.Has(62) || b.Has(1000) {
		t.Fatalf("bitset %x", b)
	}
	for _, n := range []int{201, 208, 300} {
		c := FromBytes(b.Bytes(n))
		if c.Count() != 5 || c.Max() != 200 {
			t.Errorf("round trip over %d: %x", n, c)
		}
	}
	if c := FromBytes(b.Bytes(100)); c.Count() != 4 || c.Max() != 64 {
		t.Errorf("cut at 100: %x", c)
	}
}
