package simhash

import (
	"fmt"
	"testing"
)

func TestHashlittle2(t *testing.T) {
	// The driver5 vectors of lookup3.c. They (and Hashlittle2 on 20,000
	// random keys of 0 to 3,000 bytes at every alignment) also agree
	// with systemd's jenkins_hashlittle2.
	const four = "Four score and seven years ago"
	tests := []struct {
		key          string
		pc, pb       uint32
		wantC, wantB uint32
	}{
		{"", 0, 0, 0xdeadbeef, 0xdeadbeef},
		{"", 0, 0xdeadbeef, 0xbd5b7dde, 0xdeadbeef},
		{"", 0xdeadbeef, 0xdeadbeef, 0x9c093ccd, 0xbd5b7dde},
		{four, 0, 0, 0x17770551, 0xce7226e6},
		{four, 0, 1, 0xe3607cae, 0xbd371de4},
		{four, 1, 0, 0xcd628161, 0x6cbea4b3},
	}
	for _, tt := range tests {
		c, b := Hashlittle2([]byte(tt.key), tt.pc, tt.pb)
		if c != tt.wantC || b != tt.wantB {
			t.Errorf("Hashlittle2(%q, %#x, %#x) = %08x %08x, want %08x %08x",
				tt.key, tt.pc, tt.pb, c, b, tt.wantC, tt.wantB)
		}
	}
}

func TestHashLookup3(t *testing.T) {
	tests := []struct {
		in   string
		want uint64
	}{
		{"", 0xdeadbeefdeadbeef},
		{"Four score and seven years ago", 0x17770551ce7226e6},
		// Keywords of gosimhash's example (values from the systemd
		// implementation above).
		{"清华大学", 0x42b97faaa750fb95},
		{"来到", 0xfdb6353282f08219},
		{"北京", 0xbe96162a8f1bef1e},
	}
	for _, tt := range tests {
		if got := HashLookup3(tt.in); got != tt.want {
			t.Errorf("HashLookup3(%q) = %#016x, want %#016x", tt.in, got, tt.want)
		}
	}
}

// TestHashlittle2Lengths covers every key length from 0 to 26 bytes
// (every tail length, with zero, one and two full blocks) against
// systemd's jenkins_hashlittle2.
func TestHashlittle2Lengths(t *testing.T) {
	const key = "abcdefghijklmnopqrstuvwxyz"
	want := []string{
		"deadbeef deadbeef", // ""
		"58d68708 582647ac", // 1 bytes
		"fbb3a8df 6b79a0f2", // 2 bytes
		"0e397631 3c03be9e", // 3 bytes
		"b5f4889c e20dd3fa", // 4 bytes
		"026d72de 03cd18df", // 5 bytes
		"d6fa502e 23a820a4", // 6 bytes
		"b11ad4a5 59ac1d9d", // 7 bytes
		"2995c3be c7969524", // 8 bytes
		"ac6572b4 d99384ff", // 9 bytes
		"8bf7d2ef 4e0e3900", // 10 bytes
		"5f61edf8 83d51874", // 11 bytes
		"4012f87b 75b50ec0", // 12 bytes
		"928128f9 0f04ab68", // 13 bytes
		"2bb84ef8 e692ebc0", // 14 bytes
		"a9ce8fb6 263aa706", // 15 bytes
		"11347272 53dbcb26", // 16 bytes
		"8938634e a76ba167", // 17 bytes
		"1ceaf360 414e47f6", // 18 bytes
		"02a80e47 f5cffd0d", // 19 bytes
		"372707b2 680bc047", // 20 bytes
		"dfa3b04b fb0a4886", // 21 bytes
		"a9752892 b53c7ea8", // 22 bytes
		"4e25bfff 3af8a8a8", // 23 bytes
		"1b631fea e0bd774e", // 24 bytes
		"6c29c5e2 1fb0330d", // 25 bytes
		"7538b5bd 7ded7e16", // 26 bytes
	}
	for n, w := range want {
		c, b := Hashlittle2([]byte(key[:n]), 0, 0)
		if got := fmt.Sprintf("%08x %08x", c, b); got != w {
			t.Errorf("Hashlittle2(%q, 0, 0) = %s, want %s", key[:n], got, w)
		}
		if got, want := HashLookup3(key[:n]), uint64(c)<<32|uint64(b); got != want {
			t.Errorf("HashLookup3(%q) = %#016x, want %#016x", key[:n], got, want)
		}
	}
}

// TestGosimhashExample reproduces gosimhash's README example: the top 5
// keywords cppjieba (gojieba v1.4.7, default dictionaries) extracts from
// "我来到北京清华大学" (it finds only three) with their TF-IDF weights,
// hashed with HashLookup3 and summed, give 0xfeb6372a8750eb1d.
// yanyiwu/simhash's README example gives 17831459094038722629 for its
// five keywords the same way.
func TestGosimhashExample(t *testing.T) {
	tests := []struct {
		keywords []string
		weights  []float64
		want     Fingerprint
	}{
		{
			[]string{"清华大学", "来到", "北京"},
			[]float64{8.08059472162, 5.38568688411, 4.66740230872},
			0xfeb6372a8750eb1d,
		},
		{
			[]string{"蓝翔", "CEO", "升职", "加薪", "手扶拖拉机"},
			[]float64{11.739204307083542, 11.739204307083542, 10.8561552143, 10.642581114, 10.0088573539},
			17831459094038722629,
		},
	}
	for _, tt := range tests {
		fs := make([]Feature, len(tt.keywords))
		for i, w := range tt.keywords {
			fs[i] = Feature{HashLookup3(w), tt.weights[i]}
		}
		if got := Sum(fs); got != tt.want {
			t.Errorf("Sum(%v) = %s (%d), want %s (%d)", tt.keywords, got, uint64(got), tt.want, uint64(tt.want))
		}
	}
}

func BenchmarkHashLookup3(b *testing.B) {
	for _, w := range []string{"北京", "清华大学", "Four score and seven years ago"} {
		b.Run(fmt.Sprintf("%dB", len(w)), func(b *testing.B) {
			b.SetBytes(int64(len(w)))
			for b.Loop() {
				sink64 = HashLookup3(w)
			}
		})
	}
}
