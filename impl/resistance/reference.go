package resistance

import (
	"encoding/csv"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/sitelib/sitesvc/impl/asi"
)

// geneOrder is the order of the genes in a mutation list's second level.
var geneOrder = [...]string{"PR", "RT", "IN"}

// reference holds the HIV-1 tables the reports need beside the algorithms.
type reference struct {
	consensus  map[string]string   // gene → subtype B consensus amino acids (position 1 = index 0)
	drugNames  map[string]drugInfo // algorithm drug code, name or synonym → drug
	types      map[typeKey]string  // (gene, position, symbol) → mutation type
	unusual    map[typeKey]bool    // (gene, position, symbol) → isUnusual of rx-all_subtype-all.csv
	drms       map[typeKey]bool    // drug-resistance mutations (drms_hiv1.csv)
	sdrms      map[typeKey]bool    // surveillance drug-resistance mutations (sdrms_hiv1.csv)
	apobecDRMs map[typeKey]bool    // APOBEC mutations at drug-resistance positions (apobec_drms.csv)
	classNames map[string]string   // drug class → its full name ("PI" → "Protease Inhibitor")
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

func loadReference(dir fs.FS) (*reference, error) {
	ref := &reference{
		consensus: map[string]string{}, drugNames: map[string]drugInfo{}, types: map[typeKey]string{},
		unusual: map[typeKey]bool{}, drms: map[typeKey]bool{}, sdrms: map[typeKey]bool{},
		apobecDRMs: map[typeKey]bool{}, classNames: map[string]string{},
	}
	if err := ref.loadGenes(dir, "genes_hiv1.yml"); err != nil {
		return nil, err
	}
	if err := ref.loadDrugs(dir, "drugs.yml"); err != nil {
		return nil, err
	}
	if err := ref.loadClasses(dir, "drug-classes_hiv1.yml"); err != nil {
		return nil, err
	}
	if err := ref.loadTypes(dir, "mutation-type-pairs_hiv1.csv"); err != nil {
		return nil, err
	}
	err := readMutationCSV(dir, "rx-all_subtype-all.csv", "aa", "isUnusual", func(k typeKey, isUnusual string) {
		ref.unusual[k] = strings.EqualFold(isUnusual, "true")
	})
	if err != nil {
		return nil, err
	}
	for _, t := range []struct {
		file string
		set  map[typeKey]bool
	}{{"drms_hiv1.csv", ref.drms}, {"sdrms_hiv1.csv", ref.sdrms}, {"apobec_drms.csv", ref.apobecDRMs}} {
		err := readMutationCSV(dir, t.file, "aa", "", func(k typeKey, _ string) { t.set[k] = true })
		if err != nil {
			return nil, err
		}
	}
	return ref, nil
}

// geneYAML is one gene of genes_hiv1.yml.
type geneYAML struct {
	AbstractGene string `yaml:"abstractGene"`
	RefSequence  string `yaml:"refSequence"`
}

// drugYAML is one drug of drugs.yml.
type drugYAML struct {
	Name        string   `yaml:"name"`
	FullName    string   `yaml:"fullName"`
	DisplayAbbr string   `yaml:"displayAbbr"`
	DrugClass   string   `yaml:"drugClass"`
	Synonyms    []string `yaml:"synonyms"`
}

// drugClassYAML is one drug class of drug-classes_hiv1.yml.
type drugClassYAML struct {
	Name     string `yaml:"name"`
	FullName string `yaml:"fullName"`
}

func (r *reference) loadGenes(dir fs.FS, path string) error {
	err := readYAML(dir, path, func(g geneYAML) {
		r.consensus[g.AbstractGene] = strings.Join(strings.Fields(g.RefSequence), "")
	})
	if err != nil {
		return err
	}
	for _, g := range append(geneOrder[:], "CA") {
		if r.consensus[g] == "" {
			return fmt.Errorf("%s: no consensus sequence for %s", path, g)
		}
	}
	return nil
}

func (r *reference) loadDrugs(dir fs.FS, path string) error {
	err := readYAML(dir, path, func(d drugYAML) {
		info := drugInfo{FullName: d.FullName, Class: d.DrugClass}
		for _, n := range append([]string{d.Name, d.DisplayAbbr}, d.Synonyms...) {
			if n != "" {
				r.drugNames[n] = info
			}
		}
	})
	if err != nil {
		return err
	}
	if len(r.drugNames) == 0 {
		return fmt.Errorf("%s: no drugs", path)
	}
	return nil
}

// loadClasses reads the drug classes' full names (reports that a person reads print them).
func (r *reference) loadClasses(dir fs.FS, path string) error {
	return readYAML(dir, path, func(c drugClassYAML) {
		if c.Name != "" && c.FullName != "" {
			r.classNames[c.Name] = c.FullName
		}
	})
}

func (r *reference) loadTypes(dir fs.FS, path string) error {
	return readMutationCSV(dir, path, "aas", "mutationType", func(k typeKey, mutationType string) {
		r.types[k] = mutationType
	})
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

// symbols maps a reference table's amino-acid column to asi alphabet symbols
// ("_" insertion → i, "-" deletion → d, "*" stop → Z).
func symbols(aas string) []byte {
	out := make([]byte, 0, len(aas))
	for _, c := range []byte(aas) {
		switch c {
		case '_':
			c = 'i'
		case '-':
			c = 'd'
		case '*':
			c = 'Z'
		}
		out = append(out, c)
	}
	return out
}

// readYAML calls item for every item of a YAML file holding a list.
func readYAML[T any](dir fs.FS, path string, item func(T)) error {
	data, err := fs.ReadFile(dir, path)
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	var list []T
	if err := yaml.Unmarshal(data, &list); err != nil {
		return fmt.Errorf("parsing %s: %w", path, err)
	}
	for _, v := range list {
		item(v)
	}
	return nil
}

// readMutationCSV calls each for every (gene, position, symbol) a reference table of
// mutations lists: its columns gene, position and aaColumn (amino acids, read by symbols),
// and the row's value of the column named by value ("" for none).
func readMutationCSV(dir fs.FS, path, aaColumn, value string, each func(k typeKey, value string)) error {
	columns := []string{"gene", "position", aaColumn}
	if value != "" {
		columns = append(columns, value)
	}
	return readCSV(dir, path, columns, func(f map[string]string) error {
		pos, err := strconv.Atoi(f["position"])
		if err != nil {
			return fmt.Errorf("bad position %q", f["position"])
		}
		for _, c := range symbols(f[aaColumn]) {
			each(typeKey{f["gene"], pos, c}, f[value])
		}
		return nil
	})
}

// readCSV calls row for every record of a CSV file with a header line, giving the named columns.
func readCSV(dir fs.FS, path string, columns []string, row func(map[string]string) error) error {
	f, err := dir.Open(path)
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	defer f.Close()
	rd := csv.NewReader(f)
	rd.ReuseRecord = true
	header, err := rd.Read()
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.TrimPrefix(h, "\ufeff")] = i
	}
	idx := make([]int, len(columns))
	for i, c := range columns {
		n, ok := col[c]
		if !ok {
			return fmt.Errorf("%s: no %q column", path, c)
		}
		idx[i] = n
	}
	fields := make(map[string]string, len(columns))
	for line := 2; ; line++ {
		rec, err := rd.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading %s: %w", path, err)
		}
		for i, c := range columns {
			fields[c] = rec[idx[i]]
		}
		if err := row(fields); err != nil {
			return fmt.Errorf("%s line %d: %w", path, line, err)
		}
	}
}

// flags tells whether any of a mutation's non-consensus symbols is a DRM, an SDRM, or unusual
// (isUnusual in rx-all_subtype-all.csv, or absent from it, and not a DRM).
func (r *reference) flags(m Mutation) (drm, sdrm, unusual bool) {
	for _, c := range []byte(m.AAs.String()) {
		if c == m.Consensus || c == 'X' {
			continue
		}
		k := typeKey{m.Gene, m.Pos, c}
		d := r.drms[k]
		drm = drm || d
		sdrm = sdrm || r.sdrms[k]
		u, listed := r.unusual[k]
		unusual = unusual || (!d && (u || !listed))
	}
	return drm, sdrm, unusual
}
