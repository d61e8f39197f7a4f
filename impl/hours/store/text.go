package store

import (
	"unicode"
	"unicode/utf8"
)

// checkText refuses what one of the two databases would store and the other refuse, or
// what no reader expects in a name or a note: invalid UTF-8 (PostgreSQL refuses it, SQLite
// stores it) and control characters other than tab and newline (PostgreSQL refuses NUL,
// SQLite stores it; the others are never meant). The same value gets the same answer on
// both databases: 422 naming the attribute and the character's position.
func checkText(field, s string) error {
	if !utf8.ValidString(s) {
		return fieldErr(field, "is not valid UTF-8")
	}
	for i, r := range s {
		if unicode.IsControl(r) && r != '\t' && r != '\n' {
			return fieldErr(field, "holds the control character %U at byte %d; only tab and newline are allowed", r, i)
		}
	}
	return nil
}

// checkTexts applies checkText to the attributes given (nil: not in the write).
func checkTexts(fields ...textField) error {
	for _, f := range fields {
		if f.value != nil {
			if err := checkText(f.name, *f.value); err != nil {
				return err
			}
		}
	}
	return nil
}

type textField struct {
	name  string
	value *string
}

func textAttr(name string, value *string) textField { return textField{name, value} }
