package testkit

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
)

// XMLOutline reads the outline of an XML document: its root element (name
// and attributes as written, namespace declarations included, names
// resolved) and the names of the root's children, in order. The error is
// the decoder's, for a document that is not well-formed.
func XMLOutline(data []byte) (root xml.StartElement, children []xml.Name, err error) {
	dec := xml.NewDecoder(bytes.NewReader(data))
	depth := 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return root, children, nil
		}
		if err != nil {
			return root, children, fmt.Errorf("reading the XML outline: %w", err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				root = e.Copy()
			} else if depth == 1 {
				children = append(children, e.Name)
			}
			depth++
		case xml.EndElement:
			depth--
		}
	}
}
