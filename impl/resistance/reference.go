package resistance

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/sitelib/sitesvc/impl/asi"
)

// Genes are the genes of a mutation list, in the order of its second level.
var geneOrder = [...]string{"PR", "RT", "IN"}

// reference holds the HIV-1 tables the reports need beside the algorithms.
type reference struct {
	consensus map[string]string   // gene → subtype B consensus amino acids (position 1 = index 0)
	drugNames map[string]drugInfo // algorithm drug code, name or synonym → drug
	types     map[typeKey]string  // (gene, position, symbol) → mutation type
}

type drugInfo struct {
	FullName string
	Class    string
}

type typeKey struct {
	gene string
	pos  int
	aa   byte // asi alphabet symbol: amino acid, Z, d or i
}

func loadReference(dir string) (*reference, error) {
	ref := &reference{consensus: map[string]string{}, drugNames: map[string]drugInfo{}, types: map[typeKey]string{}}
	if err := ref.loadGenes(filepath.Join(dir, "genes_hiv1.yml")); err != nil {
		return nil, err
	}
	if err := ref.loadDrugs(filepath.Join(dir, "drugs.yml")); err != nil {
		return nil, err
	}
	if err := ref.loadTypes(filepath.Join(dir, "mutation-type-pairs_hiv1.csv")); err != nil {
		return nil, err
	}
	return ref, nil
}

func (r *reference) loadGenes(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading gene references: %w", err)
	}
	var genes []struct {
		AbstractGene string `yaml:"abstractGene"`
		RefSequence  string `yaml:"refSequence"`
	}
	if err := yaml.Unmarshal(data, &genes); err != nil {
		return fmt.Errorf("parsing %s: %w", path, err)
	}
	for _, g := range genes {
		r.consensus[g.AbstractGene] = strings.Join(strings.Fields(g.RefSequence), "")
	}
	for _, g := range append(geneOrder[:], "CA") {
		if r.consensus[g] == "" {
			return fmt.Errorf("%s: no consensus sequence for %s", path, g)
		}
	}
	return nil
}

func (r *reference) loadDrugs(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading drugs: %w", err)
	}
	var drugs []struct {
		Name        string   `yaml:"name"`
		FullName    string   `yaml:"fullName"`
		DisplayAbbr string   `yaml:"displayAbbr"`
		DrugClass   string   `yaml:"drugClass"`
		Synonyms    []string `yaml:"synonyms"`
	}
	if err := yaml.Unmarshal(data, &drugs); err != nil {
		return fmt.Errorf("parsing %s: %w", path, err)
	}
	for _, d := range drugs {
		info := drugInfo{FullName: d.FullName, Class: d.DrugClass}
		for _, n := range append([]string{d.Name, d.DisplayAbbr}, d.Synonyms...) {
			if n != "" {
				r.drugNames[n] = info
			}
		}
	}
	if len(r.drugNames) == 0 {
		return fmt.Errorf("%s: no drugs", path)
	}
	return nil
}

func (r *reference) loadTypes(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("reading mutation types: %w", err)
	}
	defer f.Close()
	rd := csv.NewReader(f)
	header, err := rd.Read()
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	for _, need := range []string{"gene", "position", "aas", "mutationType"} {
		if _, ok := col[need]; !ok {
			return fmt.Errorf("%s: no %q column", path, need)
		}
	}
	for {
		rec, err := rd.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading %s: %w", path, err)
		}
		pos, err := strconv.Atoi(rec[col["position"]])
		if err != nil {
			return fmt.Errorf("%s: bad position %q", path, rec[col["position"]])
		}
		for _, c := range []byte(rec[col["aas"]]) {
			switch c {
			case '_':
				c = 'i'
			case '-':
				c = 'd'
			case '*':
				c = 'Z'
			}
			r.types[typeKey{rec[col["gene"]], pos, c}] = rec[col["mutationType"]]
		}
	}
}

// typeRank orders mutation types from most to least important for a mixture's classification.
var typeRank = map[string]int{"Major": 5, "Accessory": 4, "NRTI": 3, "NNRTI": 3, "Other": 1}

// classify returns the mutation type of the most important symbol at a position.
func (r *reference) classify(gene string, pos int, set asi.AASet) string {
	best := "Other"
	for _, c := range []byte(set.String()) {
		if t, ok := r.types[typeKey{gene, pos, c}]; ok && typeRank[t] > typeRank[best] {
			best = t
		}
	}
	return best
}

// genericName is the drug's full name: the algorithm's FULLNAME, else the reference table's.
func (r *reference) genericName(d *asi.Drug) string {
	if d.FullName != "" {
		return d.FullName
	}
	if info, ok := r.drugNames[d.Name]; ok {
		return info.FullName
	}
	if i := strings.IndexAny(d.Name, "/_"); i > 0 {
		if info, ok := r.drugNames[d.Name[:i]]; ok {
			return info.FullName
		}
	}
	return d.Name
}
