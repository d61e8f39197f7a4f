package align

import (
	"os"
	"runtime"
	"syscall"
	"testing"
)

// nucAminoNtPerSec is the reference full-DP aligner's speed (NucAmino, ~16,000 nt per CPU
// second); the benchmarks report their ratio to it.
const nucAminoNtPerSec = 16000

// benchInputs returns the generated benchmark sequences: PR+RT (~1.3 kb) and PR+RT+IN
// (~2.8 kb), each with substitutions, IUPAC mixtures and an RT69 insertion.
func benchInputs(b testing.TB, a *Aligner) (prrt, prrtin string) {
	edit := func(s string) string {
		// Mixtures: a transition ambiguity every 97 nucleotides.
		bs := []byte(s)
		for p := 50; p < len(bs); p += 97 {
			switch bs[p] {
			case 'A', 'G':
				bs[p] = 'R'
			case 'C', 'T':
				bs[p] = 'Y'
			}
		}
		return string(bs)
	}
	withIns := func(s string) string {
		// An RT69 insertion (one codon after RT codon 69; PR is 99 codons).
		at := 3 * (99 + 69)
		return s[:at] + "AGC" + s[at:]
	}
	s1, _ := synth(b, a, 11, 13, synthGene{PR, 1, 99}, synthGene{RT, 1, 335})
	s2, _ := synth(b, a, 12, 13, synthGene{PR, 1, 99}, synthGene{RT, 1, 560}, synthGene{IN, 1, 288})
	return edit(withIns(s1)), edit(withIns(s2))
}

func benchAlign(b *testing.B, seqs []string) {
	a := newTestAligner(b)
	inputs := make([][]byte, len(seqs))
	nts := 0
	for i, s := range seqs {
		inputs[i] = []byte(s)
		nts += len(s)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuSeconds()
	for b.Loop() {
		for _, in := range inputs {
			if _, err := a.Align(in); err != nil {
				b.Fatal(err)
			}
		}
	}
	// Per core: the process's CPU time, not wall time, so that other load on the machine
	// does not count against the aligner (the benchmark runs on one goroutine).
	sec := cpuSeconds() - cpu0
	if sec > 0 {
		ntPerSec := float64(nts) * float64(b.N) / sec
		b.ReportMetric(ntPerSec, "nt/s")
		b.ReportMetric(float64(len(inputs))*float64(b.N)/sec, "seq/s")
		b.ReportMetric(ntPerSec/nucAminoNtPerSec, "x-NucAmino")
	}
}

// cpuSeconds returns the user+system CPU time of the process.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// BenchmarkAlignShared aligns every real sequence of the shared data (one op = all of them).
func BenchmarkAlignShared(b *testing.B) {
	var seqs []string
	for _, f := range loadOracles(b) {
		seqs = append(seqs, f.seq)
	}
	benchAlign(b, seqs)
}

// BenchmarkAlignPRRT aligns a generated PR+RT sequence (~1.3 kb).
func BenchmarkAlignPRRT(b *testing.B) {
	prrt, _ := benchInputs(b, newTestAligner(b))
	benchAlign(b, []string{prrt})
}

// BenchmarkAlignPRRTIN aligns a generated PR+RT+IN sequence (~2.8 kb).
func BenchmarkAlignPRRTIN(b *testing.B) {
	_, prrtin := benchInputs(b, newTestAligner(b))
	benchAlign(b, []string{prrtin})
}

// coldAlign aligns seq with a new aligner (a cold workspace) and returns the result and the
// bytes the call allocated; an error ends the test.
func coldAlign(tb testing.TB, seq []byte) (*Result, uint64) {
	tb.Helper()
	cold, err := NewAligner(os.DirFS(referenceDir(tb)))
	if err != nil {
		tb.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := cold.Align(seq)
	runtime.ReadMemStats(&after)
	if err != nil {
		tb.Fatal(err)
	}
	return res, after.TotalAlloc - before.TotalAlloc
}

// BenchmarkAlign9kb aligns a 9 kb sequence (PR+RT+IN between non-HIV flanks) and reports the
// bytes one call allocates on a cold workspace ("cold-B/seq"): the working memory one
// concurrent sequence needs at most, beside the warm B/op.
func BenchmarkAlign9kb(b *testing.B) {
	a := newTestAligner(b)
	_, prrtin := benchInputs(b, a)
	seq := []byte(flank(3000, 1) + prrtin + flank(9000-3000-len(prrtin), 2))
	_, coldBytes := coldAlign(b, seq)
	benchAlign(b, []string{string(seq)})
	b.ReportMetric(float64(coldBytes), "cold-B/seq")
}
