package jsonapireq

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"unicode/utf8"
)

// CheckUTF8 refuses a request document holding a string that is not valid
// UTF-8, with 422 and the JSON Pointer of the string (a member name points
// at its member). Go's JSON decoder replaces such bytes with U+FFFD, so
// without this check the text would be stored changed and the write
// answered 201. A body that is not JSON is left for the contract's
// validator to refuse.
func CheckUTF8(body []byte) error {
	if utf8.Valid(body) {
		return nil
	}
	type frame struct {
		object    bool
		key       string // object: the member being read
		expectKey bool   // object: the next string is a member name
		index     int    // array: the element being read
	}
	var stack []frame
	pointer := func() string {
		var b bytes.Buffer
		for _, f := range stack {
			b.WriteByte('/')
			if f.object {
				b.WriteString(escapePointer(f.key))
			} else {
				b.WriteString(strconv.Itoa(f.index))
			}
		}
		return b.String()
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	for {
		start := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return nil // the end, or not JSON: the validator answers
		}
		raw := body[start:dec.InputOffset()]
		top := len(stack) - 1
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				stack = append(stack, frame{object: t == '{', expectKey: t == '{'})
				continue
			}
			stack = stack[:top]
		case string:
			if top >= 0 && stack[top].object && stack[top].expectKey {
				stack[top].key = t
				stack[top].expectKey = false
				if !utf8.Valid(raw) {
					return &Error{Status: http.StatusUnprocessableEntity, Message: fmt.Sprintf("the member name %q is not valid UTF-8", t), Pointer: pointer()}
				}
				continue
			}
			if !utf8.Valid(raw) {
				return &Error{Status: http.StatusUnprocessableEntity, Message: "the text is not valid UTF-8 (the request document must be UTF-8: RFC 8259)", Pointer: pointer()}
			}
		}
		// A value ended: the enclosing container moves on.
		if top = len(stack) - 1; top >= 0 {
			if stack[top].object {
				stack[top].expectKey = true
			} else {
				stack[top].index++
			}
		}
	}
}
