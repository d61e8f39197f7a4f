package align_test

import (
	"fmt"

	"github.com/sitelib/sitesvc/bundled/hivdb"
	"github.com/sitelib/sitesvc/impl/align"
)

// Aligning a protease fragment (PR codons 1–60 of the subtype B consensus, with M46I).
func ExampleAligner_Align() {
	// The reference tables built into the binary (bundled/hivdb).
	a, err := align.NewAligner(hivdb.Reference())
	if err != nil {
		fmt.Println(err)
		return
	}
	seq := "CCTCAGATCACTCTTTGGCAACGACCCCTCGTCACAATAAAGATAGGGGGGCAACTAAAGGAAGCTCTATTAGATACAGGAGCAGATGATACAGTATTAGAAGAAATGAATTTGCCAGGAAGATGGAAACCAAAAATAATAGGGGGAATTGGAGGTTTTATCAAAGTAAGACAGTATGAT"
	res, err := a.Align([]byte(seq))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, g := range res.Genes {
		fmt.Println(g.Gene, g.FirstAA, g.LastAA, g.FirstNA, g.LastNA, g.Mutations)
	}
	// Output:
	// PR 1 60 1 180 [M46I]
}
