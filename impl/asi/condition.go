package asi

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Limits that keep a hostile user algorithm from costing unbounded time or memory. Evaluation
// has no loops: its cost is linear in the size of the parsed conditions, so bounding the text
// bounds the time.
const (
	// MaxConditionBytes is the longest condition text accepted.
	MaxConditionBytes = 64 << 10
	// MaxDepth is the deepest nesting of parentheses, NOT groups and MAX groups accepted.
	MaxDepth = 32
	// MaxPosition is the largest codon position a rule may name.
	MaxPosition = 10000
)

type nodeKind uint8

const (
	kindResidue  nodeKind = iota // true when the position carries one of set
	kindInverted                 // 41(NOT L): true when the position carries a symbol outside set
	kindNot                      // NOT / EXCLUDE: negation of kids[0]
	kindChain                    // kids joined by AND/OR, evaluated strictly left to right
	kindSelect                   // SELECT: the number of kids that hold lies in [min, max]
)

type node struct {
	kind     nodeKind
	pos      int
	set      AASet
	kids     []*node
	and      []bool // kindChain: and[i] joins kids[i] and kids[i+1] (false = OR)
	min, max int    // kindSelect
}

func (n *node) holds(g *Mutations) bool {
	switch n.kind {
	case kindResidue:
		return g.At(n.pos)&n.set != 0
	case kindInverted:
		return g.At(n.pos)&ruleSymbols&^n.set != 0
	case kindNot:
		return !n.kids[0].holds(g)
	case kindChain:
		v := n.kids[0].holds(g)
		for i, k := range n.kids[1:] {
			if n.and[i] {
				v = v && k.holds(g)
			} else {
				v = v || k.holds(g)
			}
		}
		return v
	case kindSelect:
		count := 0
		for _, k := range n.kids {
			if k.holds(g) {
				count++
			}
		}
		return count >= n.min && count <= n.max
	}
	return false
}

// Match is one observed position that made a condition hold, with the symbols there that matched.
type Match struct {
	Pos int
	AAs AASet
}

// matches appends the positions that make a holding node hold (negations contribute nothing).
func (n *node) matches(g *Mutations, out []Match) []Match {
	switch n.kind {
	case kindResidue:
		if s := g.At(n.pos) & n.set; s != 0 {
			out = appendMatch(out, Match{n.pos, s})
		}
	case kindInverted:
		if s := g.At(n.pos) & ruleSymbols &^ n.set; s != 0 {
			out = appendMatch(out, Match{n.pos, s})
		}
	case kindChain, kindSelect:
		for _, k := range n.kids {
			if k.holds(g) {
				out = k.matches(g, out)
			}
		}
	}
	return out
}

// appendMatch merges m into out, which is kept in ascending position order (so displays are
// stable); a binary search keeps a hostile condition naming every position cheap.
func appendMatch(out []Match, m Match) []Match {
	i, found := slices.BinarySearchFunc(out, m.Pos, func(x Match, pos int) int { return x.Pos - pos })
	if found {
		out[i].AAs |= m.AAs
		return out
	}
	return slices.Insert(out, i, m)
}

// Residue is one position and amino-acid set named by a rule.
type Residue struct {
	Pos      int
	AAs      AASet
	Inverted bool // 41(NOT L)
}

// ScoreItem is one item of a SCORE FROM list: a boolean condition with its score, or a MAX group.
type ScoreItem struct {
	Text  string      // the item's condition as written, whitespace collapsed ("41L AND 215FY")
	Value float64     // the score added when the condition holds (leaf items)
	Max   []ScoreItem // the items of a MAX group; nil for a leaf
	cond  *node
}

// IsMax reports whether the item is a MAX group.
func (it *ScoreItem) IsMax() bool { return it.cond == nil }

// Residues returns the residues of a leaf whose condition is residues joined only by AND
// (the common "mutation or combination" shape); ok is false for any other condition.
func (it *ScoreItem) Residues() (rs []Residue, ok bool) {
	if it.cond == nil {
		return nil, false
	}
	var walk func(n *node) bool
	walk = func(n *node) bool {
		switch n.kind {
		case kindResidue, kindInverted:
			rs = append(rs, Residue{Pos: n.pos, AAs: n.set, Inverted: n.kind == kindInverted})
			return true
		case kindChain:
			for i, k := range n.kids {
				if i > 0 && !n.and[i-1] {
					return false
				}
				if !walk(k) {
					return false
				}
			}
			return true
		}
		return false
	}
	if !walk(it.cond) {
		return nil, false
	}
	return rs, true
}

// Condition is a parsed rule condition: a boolean statement or a SCORE FROM statement.
type Condition struct {
	Text    string
	boolean *node
	items   []ScoreItem
	cost    Cost
}

// Cost is what evaluating a condition against one gene visits, counted when it is parsed:
// the measure of evaluation work the SOAP work budget weighs (resistance.Weight), since the
// text alone undercounts a long SCORE FROM list (every item that holds also becomes a
// partial score and a line of a detailed report).
type Cost struct {
	// Nodes are the residues, NOT and EXCLUDE, AND/OR chains and SELECT groups evaluated.
	Nodes int
	// Items are the SCORE FROM items: leaf items (each a partial score when it holds) and
	// MAX groups.
	Items int
}

// Cost returns what evaluating the condition visits.
func (c *Condition) Cost() Cost { return c.cost }

func (n *node) count() int {
	total := 1
	for _, k := range n.kids {
		total += k.count()
	}
	return total
}

func itemsCost(items []ScoreItem) Cost {
	var c Cost
	for i := range items {
		c.Items++
		if items[i].cond != nil {
			c.Nodes += items[i].cond.count()
		} else {
			sub := itemsCost(items[i].Max)
			c.Nodes += sub.Nodes
			c.Items += sub.Items
		}
	}
	return c
}

// IsScore reports whether the condition is a SCORE FROM statement.
func (c *Condition) IsScore() bool { return c.boolean == nil }

// Items returns the items of a SCORE FROM statement.
func (c *Condition) Items() []ScoreItem { return c.items }

// Holds evaluates a boolean condition against one gene's mutations. A score condition holds
// when its score is not zero.
func (c *Condition) Holds(g *Mutations) bool {
	if c.boolean != nil {
		return c.boolean.holds(g)
	}
	return c.Score(g) != 0
}

// Partial is the contribution of one score item that held.
type Partial struct {
	Item  *ScoreItem // the leaf item that held (inside a MAX group: the one that won)
	Score float64
}

// Matches returns the observed positions that make a leaf item's condition hold (computed on
// demand: only detailed reports need them).
func (it *ScoreItem) Matches(g *Mutations) []Match {
	if it.cond == nil || !it.cond.holds(g) {
		return nil
	}
	return it.cond.matches(g, nil)
}

// Score evaluates a SCORE FROM statement: the sum of the items that hold, a MAX group adding
// only its largest holding item (0 when none holds; negative values count). Each item adds at
// most once however many of a mixture's amino acids match it.
func (c *Condition) Score(g *Mutations) float64 { return c.score(g, nil) }

// ScoreDetail is Score that also appends one Partial per item that added to the score.
func (c *Condition) ScoreDetail(g *Mutations, dst []Partial) (float64, []Partial) {
	if dst == nil {
		dst = []Partial{}
	}
	s := c.score(g, &dst)
	return s, dst
}

func (c *Condition) score(g *Mutations, dst *[]Partial) float64 {
	sum := 0.0
	for i := range c.items {
		it := &c.items[i]
		if it.cond == nil {
			v, leaf := maxOf(it.Max, g)
			if leaf != nil {
				sum += v
				if dst != nil {
					*dst = append(*dst, Partial{Item: leaf, Score: v})
				}
			}
			continue
		}
		if it.cond.holds(g) {
			sum += it.Value
			if dst != nil {
				*dst = append(*dst, Partial{Item: it, Score: it.Value})
			}
		}
	}
	return sum
}

// maxOf returns the largest value among the items that hold and the leaf that gave it.
func maxOf(items []ScoreItem, g *Mutations) (float64, *ScoreItem) {
	var best float64
	var bestLeaf *ScoreItem
	for i := range items {
		it := &items[i]
		var v float64
		var leaf *ScoreItem
		if it.cond == nil {
			v, leaf = maxOf(it.Max, g)
		} else if it.cond.holds(g) {
			v, leaf = it.Value, it
		}
		if leaf != nil && (bestLeaf == nil || v > best) {
			best, bestLeaf = v, leaf
		}
	}
	return best, bestLeaf
}

// Matches returns the observed positions that make a holding boolean condition hold.
func (c *Condition) Matches(g *Mutations) []Match {
	if c.boolean == nil {
		var out []Match
		_, ps := c.ScoreDetail(g, nil)
		for _, p := range ps {
			for _, m := range p.Item.Matches(g) {
				out = appendMatch(out, m)
			}
		}
		return out
	}
	if !c.boolean.holds(g) {
		return nil
	}
	return c.boolean.matches(g, nil)
}

// ParseCondition parses a rule condition. Errors are *Error with the offset of the fault.
func ParseCondition(text string) (*Condition, error) {
	if len(text) > MaxConditionBytes {
		return nil, &Error{What: fmt.Sprintf("condition is %d bytes, more than the %d allowed", len(text), MaxConditionBytes), Offset: -1}
	}
	p := &parser{text: text}
	c := &Condition{Text: text}
	if p.keyword("SCORE") {
		if !p.keyword("FROM") {
			return nil, p.fail(`expected "FROM" after "SCORE"`)
		}
		if !p.punct("(") {
			return nil, p.fail(`expected "(" after "SCORE FROM"`)
		}
		items, err := p.scoreList()
		if err != nil {
			return nil, err
		}
		if !p.punct(")") {
			return nil, p.fail(`expected "," or ")" in the SCORE FROM list`)
		}
		c.items = items
	} else {
		n, err := p.boolExpr()
		if err != nil {
			return nil, err
		}
		c.boolean = n
	}
	p.space()
	if p.pos < len(p.text) {
		return nil, p.fail("unexpected text after the end of the condition")
	}
	if c.boolean != nil {
		c.cost = Cost{Nodes: c.boolean.count()}
	} else {
		c.cost = itemsCost(c.items)
	}
	return c, nil
}

// ParseResidue parses one residue ("41L", "M41L", "215FY", "41(NOT L)"), as used in comment
// placeholders such as $listMutsIn{118(NOT R)}.
func ParseResidue(text string) (Residue, error) {
	p := &parser{text: text}
	n, err := p.residue()
	if err != nil {
		return Residue{}, err
	}
	p.space()
	if p.pos < len(p.text) {
		return Residue{}, p.fail("unexpected text after the residue")
	}
	return Residue{Pos: n.pos, AAs: n.set, Inverted: n.kind == kindInverted}, nil
}

// HoldsAt reports whether the residue holds for the symbols observed at its position and
// returns the matching symbols.
func (r Residue) HoldsAt(observed AASet) AASet {
	if r.Inverted {
		return observed & ruleSymbols &^ r.AAs
	}
	return observed & r.AAs
}

type parser struct {
	text  string
	pos   int
	depth int
}

func (p *parser) space() {
	for p.pos < len(p.text) {
		switch p.text[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func isWordByte(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (p *parser) keyword(kw string) bool {
	p.space()
	if !strings.HasPrefix(p.text[p.pos:], kw) {
		return false
	}
	end := p.pos + len(kw)
	if end < len(p.text) && isWordByte(p.text[end]) {
		return false
	}
	p.pos = end
	return true
}

func (p *parser) punct(s string) bool {
	p.space()
	if strings.HasPrefix(p.text[p.pos:], s) {
		p.pos += len(s)
		return true
	}
	return false
}

// found describes the text at the current position for error messages.
func (p *parser) found() string {
	p.space()
	if p.pos >= len(p.text) {
		return "the end of the condition"
	}
	rest := p.text[p.pos:]
	if i := strings.IndexAny(rest, " \t\r\n"); i >= 0 {
		rest = rest[:i]
	}
	if len(rest) > 16 {
		rest = rest[:16] + "…"
	}
	return strconv.Quote(rest)
}

func (p *parser) fail(what string) error {
	what += ", found " + p.found()
	return at(p.text, p.pos, what)
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > MaxDepth {
		return at(p.text, p.pos, fmt.Sprintf("nesting deeper than %d levels", MaxDepth))
	}
	return nil
}

func (p *parser) boolExpr() (*node, error) {
	first, err := p.term()
	if err != nil {
		return nil, err
	}
	chain := &node{kind: kindChain, kids: []*node{first}}
	for {
		var and bool
		switch {
		case p.keyword("AND"):
			and = true
		case p.keyword("OR"):
			and = false
		default:
			if len(chain.kids) == 1 {
				return first, nil
			}
			return chain, nil
		}
		t, err := p.term()
		if err != nil {
			return nil, err
		}
		chain.kids = append(chain.kids, t)
		chain.and = append(chain.and, and)
	}
}

func (p *parser) group() (*node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	n, err := p.boolExpr()
	if err != nil {
		return nil, err
	}
	if !p.punct(")") {
		return nil, p.fail(`expected "AND", "OR" or ")"`)
	}
	p.depth--
	return n, nil
}

func (p *parser) term() (*node, error) {
	p.space()
	switch {
	case p.punct("("):
		return p.group()
	case p.keyword("NOT"):
		if p.punct("(") {
			n, err := p.group()
			if err != nil {
				return nil, err
			}
			return &node{kind: kindNot, kids: []*node{n}}, nil
		}
		r, err := p.residue()
		if err != nil {
			return nil, err
		}
		return &node{kind: kindNot, kids: []*node{r}}, nil
	case p.keyword("EXCLUDE"):
		r, err := p.residue()
		if err != nil {
			return nil, err
		}
		return &node{kind: kindNot, kids: []*node{r}}, nil
	case p.keyword("SELECT"):
		return p.selectStmt()
	}
	return p.residue()
}

func (p *parser) integer(what string) (int, error) {
	p.space()
	start := p.pos
	for p.pos < len(p.text) && isDigit(p.text[p.pos]) {
		p.pos++
	}
	if p.pos == start {
		return 0, p.fail("expected " + what)
	}
	if p.pos-start > 6 {
		p.pos = start
		return 0, p.fail(what + " is too large")
	}
	n, _ := strconv.Atoi(p.text[start:p.pos])
	return n, nil
}

func (p *parser) selectStmt() (*node, error) {
	n := &node{kind: kindSelect, min: 0, max: int(^uint(0) >> 1)}
	var err error
	switch {
	case p.keyword("ATLEAST"):
		if n.min, err = p.integer("a count after ATLEAST"); err != nil {
			return nil, err
		}
		if p.keyword("AND") {
			if !p.keyword("NOTMORETHAN") {
				return nil, p.fail(`expected "NOTMORETHAN" after "ATLEAST n AND"`)
			}
			if n.max, err = p.integer("a count after NOTMORETHAN"); err != nil {
				return nil, err
			}
		}
	case p.keyword("EXACTLY"):
		if n.min, err = p.integer("a count after EXACTLY"); err != nil {
			return nil, err
		}
		n.max = n.min
	case p.keyword("NOTMORETHAN"):
		if n.max, err = p.integer("a count after NOTMORETHAN"); err != nil {
			return nil, err
		}
	default:
		return nil, p.fail(`expected "ATLEAST", "EXACTLY" or "NOTMORETHAN" after "SELECT"`)
	}
	if !p.keyword("FROM") {
		return nil, p.fail(`expected "FROM" in SELECT`)
	}
	if !p.punct("(") {
		return nil, p.fail(`expected "(" after "SELECT … FROM"`)
	}
	for {
		var r *node
		if p.keyword("NOT") || p.keyword("EXCLUDE") {
			x, err := p.residue()
			if err != nil {
				return nil, err
			}
			r = &node{kind: kindNot, kids: []*node{x}}
		} else if r, err = p.residue(); err != nil {
			return nil, err
		}
		n.kids = append(n.kids, r)
		if p.punct(",") {
			continue
		}
		if p.punct(")") {
			break
		}
		return nil, p.fail(`expected "," or ")" in the SELECT list`)
	}
	if n.min > n.max {
		return nil, at(p.text, p.pos, fmt.Sprintf("SELECT needs at least %d but not more than %d: no count satisfies both", n.min, n.max))
	}
	return n, nil
}

// residue parses [consensus letter] position (symbols | "(" NOT symbols ")").
func (p *parser) residue() (*node, error) {
	p.space()
	start := p.pos
	if p.pos+1 < len(p.text) && p.text[p.pos] >= 'A' && p.text[p.pos] <= 'Z' && isDigit(p.text[p.pos+1]) {
		p.pos++ // the consensus letter is documentation only; matching uses the observed symbols
	}
	digits := p.pos
	for p.pos < len(p.text) && isDigit(p.text[p.pos]) {
		p.pos++
	}
	if p.pos == digits {
		p.pos = start
		return nil, p.fail("expected a residue such as 41L, M41L, 215FY or 41(NOT L)")
	}
	if p.pos-digits > 5 {
		p.pos = digits
		return nil, p.fail("position is too large")
	}
	pos, _ := strconv.Atoi(p.text[digits:p.pos])
	if pos < 1 || pos > MaxPosition {
		p.pos = digits
		return nil, p.fail(fmt.Sprintf("position must be 1 to %d", MaxPosition))
	}
	n := &node{kind: kindResidue, pos: pos}
	if p.pos < len(p.text) && (p.text[p.pos] == '(' || p.text[p.pos] == ' ') {
		save := p.pos
		if p.punct("(") && p.keyword("NOT") {
			p.space()
			set, err := p.symbols()
			if err != nil {
				return nil, err
			}
			if !p.punct(")") {
				return nil, p.fail(`expected ")" after the amino acids of "(NOT …)"`)
			}
			n.kind, n.set = kindInverted, set
			return n, nil
		}
		p.pos = save
	}
	set, err := p.symbols()
	if err != nil {
		return nil, err
	}
	n.set = set
	return n, nil
}

func (p *parser) symbols() (AASet, error) {
	start := p.pos
	var set AASet
	for p.pos < len(p.text) && isWordByte(p.text[p.pos]) {
		c := p.text[p.pos]
		b := symbolBit[c] & ruleSymbols
		if b == 0 {
			return 0, at(p.text, p.pos, fmt.Sprintf("%q is not an amino acid (ACDEFGHIKLMNPQRSTVWY), Z (stop), d (deletion) or i (insertion)", c))
		}
		set |= b
		p.pos++
	}
	if p.pos == start {
		return 0, p.fail("expected amino acids after the position")
	}
	return set, nil
}

func (p *parser) scoreList() ([]ScoreItem, error) {
	var items []ScoreItem
	for {
		it, err := p.scoreItem()
		if err != nil {
			return nil, err
		}
		items = append(items, it)
		if !p.punct(",") {
			return items, nil
		}
	}
}

func (p *parser) scoreItem() (ScoreItem, error) {
	p.space()
	start := p.pos
	if p.keyword("MAX") {
		if !p.punct("(") {
			return ScoreItem{}, p.fail(`expected "(" after "MAX"`)
		}
		if err := p.enter(); err != nil {
			return ScoreItem{}, err
		}
		items, err := p.scoreList()
		if err != nil {
			return ScoreItem{}, err
		}
		if !p.punct(")") {
			return ScoreItem{}, p.fail(`expected "," or ")" in the MAX list`)
		}
		p.depth--
		return ScoreItem{Text: collapse(p.text[start:p.pos]), Max: items}, nil
	}
	cond, err := p.boolExpr()
	if err != nil {
		return ScoreItem{}, err
	}
	text := collapse(p.text[start:p.pos])
	if !p.punct("=>") {
		return ScoreItem{}, p.fail(`expected "=>" and a score after the condition of a score item`)
	}
	v, err := p.number()
	if err != nil {
		return ScoreItem{}, err
	}
	return ScoreItem{Text: text, Value: v, cond: cond}, nil
}

func (p *parser) number() (float64, error) {
	p.space()
	start := p.pos
	if p.pos < len(p.text) && (p.text[p.pos] == '-' || p.text[p.pos] == '+') {
		p.pos++
	}
	digits := 0
	for p.pos < len(p.text) && (isDigit(p.text[p.pos]) || p.text[p.pos] == '.') {
		p.pos++
		digits++
	}
	if digits == 0 || digits > 24 {
		p.pos = start
		return 0, p.fail("expected a number")
	}
	v, err := strconv.ParseFloat(p.text[start:p.pos], 64)
	if err != nil {
		p.pos = start
		return 0, p.fail("expected a number")
	}
	return v, nil
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }
