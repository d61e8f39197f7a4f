// Package asi reads drug-resistance algorithms in the Algorithm Specification Interface
// (ASI 2.x) XML format and evaluates them against the mutations of HIV-1 genes.
//
// Reading is safe for untrusted input: the document size is bounded, a DOCTYPE is tolerated
// only without an internal subset (its external DTD is never fetched), entities other than
// XML's five are refused, and every condition is parsed up front with bounded length and
// nesting, so evaluation time is bounded by the document size. A broken algorithm yields an
// *Error naming the element (drug, rule, comment) and the position in the condition.
package asi

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxAlgorithmBytes is the largest algorithm document accepted (HIVDB 10.2 is about 190 KB).
const MaxAlgorithmBytes = 4 << 20

// maxElementDepth bounds XML nesting (ASI documents nest five deep).
const maxElementDepth = 16

// Algorithm is a parsed, validated ASI algorithm. It is immutable and safe for concurrent use.
type Algorithm struct {
	Name, Version, Date string
	Genes               []GeneDef
	Levels              []Level // ascending ORDER
	Classes             []DrugClass
	GlobalRange         ScoreRanges // nil when the algorithm has none
	DefaultLevel        int
	Comments            map[string]*Comment
	Drugs               []*Drug
	MutationComments    []GeneComments
	ResultComments      []*ResultCommentRule

	// indexes built while reading: a user algorithm may define tens of thousands of drugs
	// or levels within the size limit, and linear lookups per drug made reading quadratic
	drugByName   map[string]*Drug
	levelByOrder map[int]Level
}

// GeneDef is a GENE_DEFINITION: a gene and the drug classes it is evaluated for.
type GeneDef struct {
	Name    string
	Classes []string
}

// Level is a LEVEL_DEFINITION.
type Level struct {
	Order int
	Text  string // ORIGINAL
	SIR   string // S, I or R
}

// DrugClass is a DRUGCLASS with its drugs in the algorithm's order.
type DrugClass struct {
	Name  string
	Drugs []string
}

// Comment is a COMMENT_STRING definition.
type Comment struct {
	ID      string
	Text    string
	SortTag int
}

// Drug is a DRUG with its rules.
type Drug struct {
	Name     string
	FullName string // may be empty (Rega has none)
	Class    string
	Gene     string // the gene whose drug classes include Class; empty when none does
	Rules    []*Rule
}

// HasScore reports whether any of the drug's rules is a SCORE FROM rule.
func (d *Drug) HasScore() bool {
	for _, r := range d.Rules {
		if r.Condition.IsScore() {
			return true
		}
	}
	return false
}

// Rule is a drug RULE: a condition and its actions.
type Rule struct {
	Condition *Condition
	Level     int         // LEVEL action; 0 when the rule has none
	Ranges    ScoreRanges // SCORERANGE action (the global range when USE_GLOBALRANGE)
	Comments  []string    // COMMENT actions (ids)
}

// GeneComments holds the MUTATION_COMMENTS rules of one gene.
type GeneComments struct {
	Gene  string
	Rules []*CommentRule
}

// CommentRule is a MUTATION_COMMENTS rule: a boolean condition and the comments it triggers.
type CommentRule struct {
	Condition *Condition
	Comments  []string
}

// ResultCommentRule is a RESULT_COMMENT_RULE: conditions on drug levels, all of which must hold.
type ResultCommentRule struct {
	Conditions []LevelCondition
	Comments   []string
}

// LevelCondition compares a drug's level with a value: Op is one of EQ NEQ LT LTE GT GTE.
type LevelCondition struct {
	Drug  string
	Op    string
	Value int
}

// Level returns the definition of a level order (the zero Level when undefined).
func (a *Algorithm) Level(order int) Level {
	if a.levelByOrder != nil {
		return a.levelByOrder[order]
	}
	for _, l := range a.Levels {
		if l.Order == order {
			return l
		}
	}
	return Level{}
}

// Drug returns the drug named name, or nil.
func (a *Algorithm) Drug(name string) *Drug {
	if a.drugByName != nil {
		return a.drugByName[name]
	}
	for _, d := range a.Drugs {
		if d.Name == name {
			return d
		}
	}
	return nil
}

// ClassGene returns the gene evaluated for a drug class, or "".
func (a *Algorithm) ClassGene(class string) string {
	for _, g := range a.Genes {
		if slices.Contains(g.Classes, class) {
			return g.Name
		}
	}
	return ""
}

type xmlRef struct {
	Ref string `xml:"ref,attr"`
}

type xmlRule struct {
	Condition *string `xml:"CONDITION"`
	Actions   *struct {
		Levels     []string `xml:"LEVEL"`
		Comments   []xmlRef `xml:"COMMENT"`
		ScoreRange []struct {
			Text      string    `xml:",chardata"`
			UseGlobal *struct{} `xml:"USE_GLOBALRANGE"`
		} `xml:"SCORERANGE"`
	} `xml:"ACTIONS"`
}

type xmlAlgorithm struct {
	XMLName xml.Name `xml:"ALGORITHM"`
	Name    string   `xml:"ALGNAME"`
	Version string   `xml:"ALGVERSION"`
	Date    string   `xml:"ALGDATE"`
	Defs    *struct {
		Genes []struct {
			Name    string `xml:"NAME"`
			Classes string `xml:"DRUGCLASSLIST"`
		} `xml:"GENE_DEFINITION"`
		Levels []struct {
			Order    string `xml:"ORDER"`
			Original string `xml:"ORIGINAL"`
			SIR      string `xml:"SIR"`
		} `xml:"LEVEL_DEFINITION"`
		Classes []struct {
			Name  string `xml:"NAME"`
			Drugs string `xml:"DRUGLIST"`
		} `xml:"DRUGCLASS"`
		GlobalRange  *string `xml:"GLOBALRANGE"`
		DefaultLevel *string `xml:"DEFAULT_LEVEL"`
		Comments     []struct {
			ID      string `xml:"id,attr"`
			Text    string `xml:"TEXT"`
			SortTag string `xml:"SORT_TAG"`
		} `xml:"COMMENT_DEFINITIONS>COMMENT_STRING"`
	} `xml:"DEFINITIONS"`
	Drugs []struct {
		Name     string    `xml:"NAME"`
		FullName string    `xml:"FULLNAME"`
		Rules    []xmlRule `xml:"RULE"`
	} `xml:"DRUG"`
	MutationComments []struct {
		Name  string    `xml:"NAME"`
		Rules []xmlRule `xml:"RULE"`
	} `xml:"MUTATION_COMMENTS>GENE"`
	ResultComments []struct {
		Conditions []struct {
			Drug string   `xml:"DRUG_NAME"`
			EQ   []string `xml:"EQ"`
			NEQ  []string `xml:"NEQ"`
			LT   []string `xml:"LT"`
			LTE  []string `xml:"LTE"`
			GT   []string `xml:"GT"`
			GTE  []string `xml:"GTE"`
		} `xml:"DRUG_LEVEL_CONDITIONS>DRUG_LEVEL_CONDITION"`
		Comments []xmlRef `xml:"LEVEL_ACTION>COMMENT"`
	} `xml:"RESULT_COMMENTS>RESULT_COMMENT_RULE"`
}

// Read parses and validates an ASI algorithm document.
func Read(r io.Reader) (*Algorithm, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxAlgorithmBytes+1))
	if err != nil {
		return nil, fmt.Errorf("asi: reading algorithm: %w", err)
	}
	return Parse(data)
}

// Parse parses and validates an ASI algorithm document held in memory.
func Parse(data []byte) (*Algorithm, error) {
	if len(data) > MaxAlgorithmBytes {
		return nil, &Error{What: fmt.Sprintf("algorithm document is larger than %d bytes", MaxAlgorithmBytes), Where: "document", Offset: -1}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &Error{What: "algorithm document is empty", Where: "document", Offset: -1}
	}
	if err := screen(data); err != nil {
		return nil, err
	}
	var doc xmlAlgorithm
	dec := newDecoder(data)
	if err := dec.Decode(&doc); err != nil {
		return nil, &Error{What: "malformed XML: " + err.Error(), Where: "document", Offset: -1}
	}
	return build(&doc)
}

func newDecoder(data []byte) *xml.Decoder {
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = true
	dec.Entity = nil // only the five predefined entities and character references
	dec.CharsetReader = charsetReader
	return dec
}

// charsetReader accepts the encodings ASI files are found in; everything else is refused.
func charsetReader(label string, in io.Reader) (io.Reader, error) {
	switch strings.ToLower(label) {
	case "utf-8", "utf8", "us-ascii", "ascii":
		return in, nil
	case "iso-8859-1", "latin1", "latin-1":
		raw, err := io.ReadAll(in)
		if err != nil {
			return nil, err
		}
		buf := make([]byte, 0, len(raw)*2)
		for _, b := range raw {
			buf = utf8.AppendRune(buf, rune(b))
		}
		return bytes.NewReader(buf), nil
	}
	return nil, fmt.Errorf("unsupported encoding %q (use UTF-8)", label)
}

// screen walks the tokens once before decoding: it refuses DTD internal subsets (where entity
// declarations live), undeclared entities and deep nesting, and reports where in the document.
func screen(data []byte) error {
	dec := newDecoder(data)
	depth := 0
	for {
		tok, err := dec.RawToken()
		if err == io.EOF {
			if depth != 0 {
				return &Error{What: "malformed XML: document ends inside an element", Where: "document", Offset: -1}
			}
			return nil
		}
		if err != nil {
			return &Error{What: "malformed XML: " + err.Error(), Where: "document", Offset: -1}
		}
		line, _ := dec.InputPos()
		switch t := tok.(type) {
		case xml.Directive:
			d := string(t)
			if strings.HasPrefix(d, "DOCTYPE") && strings.ContainsAny(d, "[<") {
				return elementError(fmt.Sprintf("document line %d", line), "DOCTYPE with an internal subset (entity or element declarations) is not accepted")
			}
			if strings.HasPrefix(d, "ENTITY") || strings.HasPrefix(d, "ELEMENT") || strings.HasPrefix(d, "ATTLIST") {
				return elementError(fmt.Sprintf("document line %d", line), "DTD declarations are not accepted")
			}
		case xml.StartElement:
			depth++
			if depth > maxElementDepth {
				return elementError(fmt.Sprintf("document line %d", line), "elements nest deeper than %d levels", maxElementDepth)
			}
		case xml.EndElement:
			depth--
		}
	}
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func build(doc *xmlAlgorithm) (*Algorithm, error) {
	a := &Algorithm{
		Name:         strings.TrimSpace(doc.Name),
		Version:      strings.TrimSpace(doc.Version),
		Date:         strings.TrimSpace(doc.Date),
		Comments:     map[string]*Comment{},
		drugByName:   map[string]*Drug{},
		levelByOrder: map[int]Level{},
	}
	if a.Name == "" {
		return nil, elementError("ALGNAME", "the algorithm has no name")
	}
	if doc.Defs == nil {
		return nil, elementError("DEFINITIONS", "the algorithm has no DEFINITIONS")
	}
	defs := doc.Defs
	for i, g := range defs.Genes {
		name := strings.TrimSpace(g.Name)
		if name == "" {
			return nil, elementError(fmt.Sprintf("GENE_DEFINITION %d", i+1), "gene has no NAME")
		}
		a.Genes = append(a.Genes, GeneDef{Name: name, Classes: splitList(g.Classes)})
	}
	for i, l := range defs.Levels {
		where := fmt.Sprintf("LEVEL_DEFINITION %d", i+1)
		order, err := strconv.Atoi(strings.TrimSpace(l.Order))
		if err != nil || order < 0 || order > 1000 {
			return nil, elementError(where, "ORDER %q is not a level number", l.Order)
		}
		if a.Level(order).Text != "" {
			return nil, elementError(where, "level %d is defined twice", order)
		}
		sir := strings.TrimSpace(l.SIR)
		if sir != "S" && sir != "I" && sir != "R" {
			return nil, elementError(where, "SIR %q is not S, I or R", l.SIR)
		}
		text := strings.TrimSpace(l.Original)
		if text == "" {
			return nil, elementError(where, "level %d has no ORIGINAL text", order)
		}
		a.Levels = append(a.Levels, Level{Order: order, Text: text, SIR: sir})
		a.levelByOrder[order] = a.Levels[len(a.Levels)-1]
	}
	if len(a.Levels) == 0 {
		return nil, elementError("DEFINITIONS", "no LEVEL_DEFINITION")
	}
	slices.SortFunc(a.Levels, func(x, y Level) int { return x.Order - y.Order })
	classOf := map[string]string{}
	for i, c := range defs.Classes {
		name := strings.TrimSpace(c.Name)
		if name == "" {
			return nil, elementError(fmt.Sprintf("DRUGCLASS %d", i+1), "drug class has no NAME")
		}
		drugs := splitList(c.Drugs)
		for _, d := range drugs {
			if prev, dup := classOf[d]; dup {
				return nil, elementError(fmt.Sprintf("DRUGCLASS %q", name), "drug %s is already in class %s", d, prev)
			}
			classOf[d] = name
		}
		a.Classes = append(a.Classes, DrugClass{Name: name, Drugs: drugs})
	}
	if defs.GlobalRange != nil {
		rs, err := ParseRanges(*defs.GlobalRange)
		if err != nil {
			return nil, within(err, "GLOBALRANGE")
		}
		if err := a.checkRangeLevels(rs, "GLOBALRANGE"); err != nil {
			return nil, err
		}
		a.GlobalRange = rs
	}
	a.DefaultLevel = a.Levels[0].Order
	if defs.DefaultLevel != nil {
		lv, err := strconv.Atoi(strings.TrimSpace(*defs.DefaultLevel))
		if err != nil || a.Level(lv).Text == "" {
			return nil, elementError("DEFAULT_LEVEL", "%q is not a defined level", *defs.DefaultLevel)
		}
		a.DefaultLevel = lv
	}
	for _, c := range defs.Comments {
		id := strings.TrimSpace(c.ID)
		if id == "" {
			return nil, elementError("COMMENT_STRING", "comment has no id")
		}
		if a.Comments[id] != nil {
			return nil, elementError(fmt.Sprintf("COMMENT_STRING %q", id), "comment id defined twice")
		}
		sortTag, _ := strconv.Atoi(strings.TrimSpace(c.SortTag))
		a.Comments[id] = &Comment{ID: id, Text: strings.TrimSpace(c.Text), SortTag: sortTag}
	}
	if len(doc.Drugs) == 0 {
		return nil, elementError("ALGORITHM", "the algorithm has no DRUG")
	}
	for i, xd := range doc.Drugs {
		name := strings.TrimSpace(xd.Name)
		where := fmt.Sprintf("DRUG %d", i+1)
		if name == "" {
			return nil, elementError(where, "drug has no NAME")
		}
		where = fmt.Sprintf("DRUG %q", name)
		if a.Drug(name) != nil {
			return nil, elementError(where, "drug defined twice")
		}
		class, ok := classOf[name]
		if !ok {
			return nil, elementError(where, "drug is in no DRUGCLASS")
		}
		d := &Drug{Name: name, FullName: strings.TrimSpace(xd.FullName), Class: class, Gene: a.ClassGene(class)}
		if len(xd.Rules) == 0 {
			return nil, elementError(where, "drug has no RULE")
		}
		for j, xr := range xd.Rules {
			r, err := a.buildRule(xr, fmt.Sprintf("%s RULE %d", where, j+1))
			if err != nil {
				return nil, err
			}
			d.Rules = append(d.Rules, r)
		}
		a.Drugs = append(a.Drugs, d)
		a.drugByName[name] = d
	}
	for _, g := range doc.MutationComments {
		gc := GeneComments{Gene: strings.TrimSpace(g.Name)}
		for j, xr := range g.Rules {
			where := fmt.Sprintf("MUTATION_COMMENTS GENE %q RULE %d", gc.Gene, j+1)
			r, err := a.buildRule(xr, where)
			if err != nil {
				return nil, err
			}
			if r.Condition.IsScore() || r.Level != 0 || r.Ranges != nil {
				return nil, elementError(where, "a mutation comment rule takes a boolean condition and COMMENT actions only")
			}
			gc.Rules = append(gc.Rules, &CommentRule{Condition: r.Condition, Comments: r.Comments})
		}
		a.MutationComments = append(a.MutationComments, gc)
	}
	for i, rc := range doc.ResultComments {
		where := fmt.Sprintf("RESULT_COMMENT_RULE %d", i+1)
		rule := &ResultCommentRule{}
		if len(rc.Conditions) == 0 {
			return nil, elementError(where, "no DRUG_LEVEL_CONDITION")
		}
		for _, c := range rc.Conditions {
			drug := strings.TrimSpace(c.Drug)
			if a.Drug(drug) == nil {
				return nil, elementError(where, "DRUG_NAME %q is not a drug of the algorithm", c.Drug)
			}
			n := len(rule.Conditions)
			ops := []struct {
				op   string
				vals []string
			}{{"EQ", c.EQ}, {"NEQ", c.NEQ}, {"LT", c.LT}, {"LTE", c.LTE}, {"GT", c.GT}, {"GTE", c.GTE}}
			for _, o := range ops {
				op := o.op
				for _, v := range o.vals {
					lv, err := strconv.Atoi(strings.TrimSpace(v))
					if err != nil {
						return nil, elementError(where, "%s %q is not a level number", op, v)
					}
					rule.Conditions = append(rule.Conditions, LevelCondition{Drug: drug, Op: op, Value: lv})
				}
			}
			if len(rule.Conditions) == n {
				return nil, elementError(where, "DRUG_LEVEL_CONDITION for %s has no EQ, NEQ, LT, LTE, GT or GTE", drug)
			}
		}
		for _, ref := range rc.Comments {
			if a.Comments[ref.Ref] == nil {
				return nil, elementError(where, "COMMENT ref %q is not defined in COMMENT_DEFINITIONS", ref.Ref)
			}
			rule.Comments = append(rule.Comments, ref.Ref)
		}
		a.ResultComments = append(a.ResultComments, rule)
	}
	return a, nil
}

func (a *Algorithm) checkRangeLevels(rs ScoreRanges, where string) error {
	for _, r := range rs {
		if a.Level(r.Level).Text == "" {
			return elementError(where, "level %d is not defined by a LEVEL_DEFINITION", r.Level)
		}
	}
	return nil
}

func (a *Algorithm) buildRule(xr xmlRule, where string) (*Rule, error) {
	if xr.Condition == nil || strings.TrimSpace(*xr.Condition) == "" {
		return nil, elementError(where+" CONDITION", "rule has no condition")
	}
	cond, err := ParseCondition(*xr.Condition)
	if err != nil {
		return nil, within(err, where+" CONDITION")
	}
	r := &Rule{Condition: cond}
	if xr.Actions == nil {
		return nil, elementError(where+" ACTIONS", "rule has no ACTIONS")
	}
	acts := xr.Actions
	if len(acts.Levels) > 1 || len(acts.ScoreRange) > 1 || len(acts.Levels)+len(acts.ScoreRange) > 1 {
		return nil, elementError(where+" ACTIONS", "a rule takes one LEVEL or one SCORERANGE")
	}
	if len(acts.Levels) == 1 {
		lv, err := strconv.Atoi(strings.TrimSpace(acts.Levels[0]))
		if err != nil || a.Level(lv).Text == "" {
			return nil, elementError(where+" ACTIONS LEVEL", "%q is not a defined level", strings.TrimSpace(acts.Levels[0]))
		}
		if cond.IsScore() {
			return nil, elementError(where+" ACTIONS LEVEL", "a SCORE FROM condition needs a SCORERANGE, not a LEVEL")
		}
		r.Level = lv
	}
	if len(acts.ScoreRange) == 1 {
		sr := acts.ScoreRange[0]
		if !cond.IsScore() {
			return nil, elementError(where+" ACTIONS SCORERANGE", "a SCORERANGE needs a SCORE FROM condition")
		}
		if sr.UseGlobal != nil {
			if a.GlobalRange == nil {
				return nil, elementError(where+" ACTIONS SCORERANGE", "USE_GLOBALRANGE but the algorithm has no GLOBALRANGE")
			}
			r.Ranges = a.GlobalRange
		} else {
			rs, err := ParseRanges(sr.Text)
			if err != nil {
				return nil, within(err, where+" ACTIONS SCORERANGE")
			}
			if err := a.checkRangeLevels(rs, where+" ACTIONS SCORERANGE"); err != nil {
				return nil, err
			}
			r.Ranges = rs
		}
	} else if cond.IsScore() {
		return nil, elementError(where+" ACTIONS", "a SCORE FROM condition needs a SCORERANGE")
	}
	for _, ref := range acts.Comments {
		if a.Comments[ref.Ref] == nil {
			return nil, elementError(where+" ACTIONS COMMENT", "ref %q is not defined in COMMENT_DEFINITIONS", ref.Ref)
		}
		r.Comments = append(r.Comments, ref.Ref)
	}
	return r, nil
}
