package asi

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostileManyDrugs is an algorithm of about 3 MiB holding some 30,000 one-rule drugs: reading
// it was quadratic (a linear drug lookup per drug) before the name index.
func hostileManyDrugs() []byte {
	var names []string
	var drugs strings.Builder
	for i := 0; drugs.Len() < 3<<20; i++ {
		n := fmt.Sprintf("D%d", i)
		names = append(names, n)
		fmt.Fprintf(&drugs, "<DRUG><NAME>%s</NAME><RULE><CONDITION>1A</CONDITION><ACTIONS><LEVEL>1</LEVEL></ACTIONS></RULE></DRUG>", n)
	}
	return []byte(`<ALGORITHM><ALGNAME>X</ALGNAME><DEFINITIONS><GENE_DEFINITION><NAME>RT</NAME><DRUGCLASSLIST>C</DRUGCLASSLIST></GENE_DEFINITION>` +
		`<LEVEL_DEFINITION><ORDER>1</ORDER><ORIGINAL>S</ORIGINAL><SIR>S</SIR></LEVEL_DEFINITION>` +
		`<DRUGCLASS><NAME>C</NAME><DRUGLIST>` + strings.Join(names, ",") + `</DRUGLIST></DRUGCLASS></DEFINITIONS>` + drugs.String() + `</ALGORITHM>`)
}

// hostileWideComments is an algorithm of about 3 MiB of mutation-comment rules, each a
// condition of the largest size naming every RT position: evaluating it against a list
// mutating every position made the match collection scan all positions per residue.
func hostileWideComments() []byte {
	var cond strings.Builder
	for i := 0; cond.Len() < MaxConditionBytes-20; i++ {
		if i > 0 {
			cond.WriteString(" OR ")
		}
		fmt.Fprintf(&cond, "%dA", i%560+1)
	}
	var rules strings.Builder
	for rules.Len() < 3<<20 {
		fmt.Fprintf(&rules, `<RULE><CONDITION>%s</CONDITION><ACTIONS><COMMENT ref="C"/></ACTIONS></RULE>`, cond.String())
	}
	return []byte(`<ALGORITHM><ALGNAME>X</ALGNAME><DEFINITIONS><GENE_DEFINITION><NAME>RT</NAME><DRUGCLASSLIST>C</DRUGCLASSLIST></GENE_DEFINITION>` +
		`<LEVEL_DEFINITION><ORDER>1</ORDER><ORIGINAL>S</ORIGINAL><SIR>S</SIR></LEVEL_DEFINITION>` +
		`<DRUGCLASS><NAME>C</NAME><DRUGLIST>D</DRUGLIST></DRUGCLASS>` +
		`<COMMENT_DEFINITIONS><COMMENT_STRING id="C"><TEXT>x</TEXT></COMMENT_STRING></COMMENT_DEFINITIONS></DEFINITIONS>` +
		`<DRUG><NAME>D</NAME><RULE><CONDITION>1A</CONDITION><ACTIONS><LEVEL>1</LEVEL></ACTIONS></RULE></DRUG>` +
		`<MUTATION_COMMENTS><GENE><NAME>RT</NAME>` + rules.String() + `</GENE></MUTATION_COMMENTS></ALGORITHM>`)
}

// BenchmarkHostileAlgorithms measures the time bound of user algorithms side by side with
// HIVDB 10.2: reading cost per byte of hostile documents against HIVDB's (x-hivdb-per-byte),
// and one evaluation of the wide-comment algorithm against one of HIVDB 10.2 (x-hivdb).
func BenchmarkHostileAlgorithms(b *testing.B) {
	hivdb, err := os.ReadFile(filepath.Join(hivdbDir(b), "algorithms", "HIVDB_10.2.xml"))
	if err != nil {
		b.Fatal(err)
	}
	var hivdbNsPerByte, hivdbEvalNs float64
	read := func(name string, doc []byte) {
		b.Run("read-"+name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Parse(doc); err != nil {
					b.Fatal(err)
				}
			}
			perByte := float64(b.Elapsed().Nanoseconds()) / float64(b.N) / float64(len(doc))
			b.ReportMetric(perByte, "ns/byte")
			if hivdbNsPerByte == 0 {
				hivdbNsPerByte = perByte
			} else {
				b.ReportMetric(perByte/hivdbNsPerByte, "x-hivdb-per-byte")
			}
		})
	}
	read("hivdb", hivdb)
	read("many-drugs", hostileManyDrugs())
	wide := hostileWideComments()
	read("wide-comments", wide)
	every := NewMutations(560)
	for p := 1; p <= 560; p++ {
		every.Add(p, SymbolSet('A')|SymbolSet('C'))
	}
	evaluate := func(name string, a *Algorithm) {
		b.Run("evaluate-"+name, func(b *testing.B) {
			in := Input{Genes: map[string]*Mutations{"RT": every, "PR": every, "IN": every}}
			for b.Loop() {
				a.Evaluate(in)
			}
			ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			if hivdbEvalNs == 0 {
				hivdbEvalNs = ns
			} else {
				b.ReportMetric(ns/hivdbEvalNs, "x-hivdb")
			}
		})
	}
	a, err := Parse(hivdb)
	if err != nil {
		b.Fatal(err)
	}
	evaluate("hivdb", a)
	if a, err = Parse(wide); err != nil {
		b.Fatal(err)
	}
	evaluate("wide-comments", a)
}
