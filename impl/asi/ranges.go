package asi

import (
	"math"
	"strings"
)

// Range maps the scores from Min to Max (inclusive; ±Inf for -INF/INF) to a level.
type Range struct {
	Min, Max float64
	Level    int
}

// ScoreRanges is a SCORERANGE or GLOBALRANGE list.
type ScoreRanges []Range

// scoreSlack absorbs binary rounding of decimal scores (0.1 + 0.2) at range bounds.
const scoreSlack = 1e-9

// Level maps a score to a level: the range holding the score; a score that falls in a gap
// between two ranges (0.995 between "TO 0.99" and "1 TO") takes the range below the gap.
// ok is false when the score lies below every range.
func (rs ScoreRanges) Level(score float64) (level int, ok bool) {
	bestMin := math.Inf(-1)
	for _, r := range rs {
		if score >= r.Min-scoreSlack && score <= r.Max+scoreSlack {
			return r.Level, true
		}
		if r.Max < score && (!ok || r.Min > bestMin) {
			level, ok, bestMin = r.Level, true, r.Min
		}
	}
	return level, ok
}

// ParseRanges parses "(-INF TO 9 => 1, 10 TO 14 => 2, 60 TO INF => 5)" (parentheses optional).
func ParseRanges(text string) (ScoreRanges, error) {
	if len(text) > MaxConditionBytes {
		return nil, &Error{What: "score range text is too long", Offset: -1}
	}
	p := &parser{text: text}
	paren := p.punct("(")
	var rs ScoreRanges
	for {
		lo, err := p.bound()
		if err != nil {
			return nil, err
		}
		if !p.keyword("TO") {
			return nil, p.fail(`expected "TO" in a score range`)
		}
		hi, err := p.bound()
		if err != nil {
			return nil, err
		}
		if lo > hi {
			return nil, at(text, p.pos, "score range starts above its end")
		}
		if !p.punct("=>") {
			return nil, p.fail(`expected "=>" and a level after a score range`)
		}
		lv, err := p.integer("a level number")
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			if lo <= r.Max && hi >= r.Min {
				return nil, at(text, p.pos, "score range overlaps an earlier one")
			}
		}
		rs = append(rs, Range{Min: lo, Max: hi, Level: lv})
		if !p.punct(",") {
			break
		}
	}
	if paren && !p.punct(")") {
		return nil, p.fail(`expected "," or ")" in the score ranges`)
	}
	p.space()
	if p.pos < len(text) {
		return nil, p.fail("unexpected text after the score ranges")
	}
	return rs, nil
}

func (p *parser) bound() (float64, error) {
	p.space()
	neg := strings.HasPrefix(p.text[p.pos:], "-INF")
	if neg || strings.HasPrefix(p.text[p.pos:], "+INF") {
		p.pos += 4
		if neg {
			return math.Inf(-1), nil
		}
		return math.Inf(1), nil
	}
	if p.keyword("INF") {
		return math.Inf(1), nil
	}
	return p.number()
}
