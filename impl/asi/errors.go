package asi

import "fmt"

// Error says what is wrong with an algorithm and where: the element path (drug, rule, comment)
// and, for a condition or range, the byte offset in its text with the line and column.
type Error struct {
	What   string // what is wrong, e.g. `expected "=>" after the condition of a score item`
	Where  string // element path, e.g. `DRUG "ABC" RULE 2 CONDITION`
	Offset int    // byte offset into the condition or range text; -1 when not in such a text
	Line   int    // 1-based line of Offset within that text; 0 when Offset is -1
	Column int    // 1-based column of Offset within that text; 0 when Offset is -1
}

func (e *Error) Error() string {
	where := e.Where
	if e.Offset >= 0 {
		loc := fmt.Sprintf("line %d column %d (offset %d)", e.Line, e.Column, e.Offset)
		if where == "" {
			where = loc
		} else {
			where += " at " + loc
		}
	}
	if where == "" {
		return "asi: " + e.What
	}
	return "asi: " + where + ": " + e.What
}

// at locates an error found at byte offset off of text.
func at(text string, off int, what string) *Error {
	if off > len(text) {
		off = len(text)
	}
	line, col := 1, 1
	for i := 0; i < off; i++ {
		if text[i] == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return &Error{What: what, Offset: off, Line: line, Column: col}
}

// within sets the element path of an error produced by a text parser.
func within(err error, where string) error {
	if e, ok := err.(*Error); ok {
		c := *e
		if c.Where == "" {
			c.Where = where
		} else {
			c.Where = where + " " + c.Where
		}
		return &c
	}
	return fmt.Errorf("%s: %w", where, err)
}

func elementError(where, format string, args ...any) *Error {
	return &Error{What: fmt.Sprintf(format, args...), Where: where, Offset: -1}
}
