// Package fasta reads nucleotide sequences: FASTA (named, multi-line
// records) or one bare sequence. It keeps the IUPAC nucleotide codes in
// upper case and removes everything else, counting what it removed so that
// a report can say which characters and how many. It knows nothing of
// alignment, SOAP or HTTP.
package fasta

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Nucleotides are the characters a sequence keeps (upper case): the four
// bases and the IUPAC ambiguity codes. U (RNA) is read as T.
const Nucleotides = "ACGTRYKMSWBDHVN"

// isNucleotide maps an input byte (either case) to its upper-case
// nucleotide, or 0 when it is not one.
var isNucleotide = func() (t [256]byte) {
	for _, c := range []byte(Nucleotides) {
		t[c] = c
		t[c+'a'-'A'] = c
	}
	t['U'], t['u'] = 'T', 'T'
	return t
}()

// Record is one sequence.
type Record struct {
	// Name is the header line after ">" (trimmed); empty for a bare
	// sequence or a header with nothing after ">".
	Name string
	// Sequence holds the nucleotides, upper case, at most the reader's
	// MaxKeep of them.
	Sequence []byte
	// Length is the number of nucleotides the record had, also those not
	// kept in Sequence (Length > len(Sequence) means it was cut).
	Length int
	// Removed counts the characters that are not nucleotides, by
	// character, in the order first seen. Whitespace (line breaks, CR,
	// tabs, spaces) is layout, not content, and is not counted.
	Removed []Removal
}

// Removal is one character removed from a sequence and how often.
type Removal struct {
	Char  rune
	Count int
}

// RemovedCount is the number of characters removed.
func (r *Record) RemovedCount() int {
	n := 0
	for _, x := range r.Removed {
		n += x.Count
	}
	return n
}

// RemovedSummary says which characters were removed and how many, e.g.
// `3 characters removed: "-" ×2, "1" ×1`; empty when none was.
func (r *Record) RemovedSummary() string {
	n := r.RemovedCount()
	if n == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(strconv.Itoa(n))
	if n == 1 {
		b.WriteString(" character that is not a nucleotide removed: ")
	} else {
		b.WriteString(" characters that are not nucleotides removed: ")
	}
	for i, x := range r.Removed {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.QuoteRune(x.Char))
		b.WriteString(" ×")
		b.WriteString(strconv.Itoa(x.Count))
	}
	return b.String()
}

func (r *Record) removed(c rune) {
	for i := range r.Removed {
		if r.Removed[i].Char == c {
			r.Removed[i].Count++
			return
		}
	}
	r.Removed = append(r.Removed, Removal{Char: c, Count: 1})
}

// MaxNameBytes bounds a record name; longer names are cut (on a character
// boundary), since a name is a label, not data.
const MaxNameBytes = 1000

// Reader reads records one at a time, so a large file never needs to be
// in memory at once. Lines starting with ";" or "#" are comments and are
// skipped wherever they stand (exported database queries and hand-written
// files put them before the first header; their letters are no bases).
// Input whose first line other than blank space and comments starts with
// ">" is FASTA; anything else is one bare, unnamed sequence (which may span
// lines).
type Reader struct {
	br *bufio.Reader
	// MaxKeep bounds the nucleotides kept per record (Record.Length still
	// counts them all), so that one huge record cannot exhaust memory.
	// 0 means 1<<20.
	MaxKeep int

	started   bool
	bare      bool
	done      bool
	lineStart bool
	mode      byte    // kind of the current line: '>' header, ';' comment, 'b' bases
	pending   *Record // the record whose header line was read last
	name      []byte  // the header line being read
}

// NewReader reads records from r.
func NewReader(r io.Reader) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 64<<10), lineStart: true}
}

// ReadAll reads every record of r.
func ReadAll(r io.Reader) ([]*Record, error) {
	rd := NewReader(r)
	var out []*Record
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, rec)
	}
}

// Parse reads every record of a string.
func Parse(s string) []*Record {
	recs, _ := ReadAll(strings.NewReader(s)) // a strings.Reader never fails
	return recs
}

// IsFASTA tells whether s is FASTA (its first line other than blank space
// and comment lines starts with ">"; a comment line starts with ";" or "#")
// rather than a bare sequence. Input holding only comments counts as FASTA
// (with no record), as the reader reads it.
func IsFASTA(s string) bool {
	for {
		t := strings.TrimLeft(s, " \t\r\n\f\v\ufeff")
		if !isCommentStart(t) {
			return strings.HasPrefix(t, ">")
		}
		i := strings.IndexByte(t, '\n')
		if i < 0 {
			return true
		}
		s = t[i+1:]
	}
}

// isCommentStart tells whether a line starting s is a comment line.
func isCommentStart(s string) bool {
	return strings.HasPrefix(s, ";") || strings.HasPrefix(s, "#")
}

// Next returns the next record, or io.EOF after the last one. In FASTA
// input, text before the first header is an unnamed record (when it holds
// anything); a header without sequence lines is a record of length 0.
// Errors are only those of the underlying reader.
func (rd *Reader) Next() (*Record, error) {
	if rd.done {
		return nil, io.EOF
	}
	maxKeep := rd.MaxKeep
	if maxKeep <= 0 {
		maxKeep = 1 << 20
	}
	if !rd.started {
		rd.started = true
		if err := rd.skipSpaceAndComments(); err != nil {
			rd.done = true
			if err == io.EOF {
				return nil, io.EOF
			}
			return nil, fmt.Errorf("fasta: %w", err)
		}
		c, _ := rd.br.Peek(1)
		rd.bare = len(c) == 0 || c[0] != '>'
	}
	rec, headed := rd.pending, rd.pending != nil
	rd.pending = nil
	if rec == nil {
		rec = &Record{}
	}
	var next *Record // set while reading a header line that ends rec
	for {
		chunk, err := rd.br.ReadSlice('\n')
		if err != nil && err != bufio.ErrBufferFull && err != io.EOF {
			rd.done = true
			return nil, fmt.Errorf("fasta: %w", err)
		}
		if rd.lineStart && len(chunk) > 0 {
			rd.mode = 'b'
			switch {
			case chunk[0] == ';' || chunk[0] == '#':
				rd.mode = ';'
			case chunk[0] == '>' && !rd.bare:
				rd.mode = '>'
			}
			if rd.mode == '>' {
				chunk = chunk[1:]
				rd.name = rd.name[:0]
				next = &Record{}
			}
		}
		lineEnds := err == nil || (err == io.EOF && rd.mode == '>')
		switch rd.mode {
		case '>':
			if room := MaxNameBytes + utf8.UTFMax - len(rd.name); room > 0 {
				rd.name = append(rd.name, chunk[:min(room, len(chunk))]...)
			}
		case 'b':
			appendBases(rec, chunk, maxKeep)
		}
		rd.lineStart = err == nil
		if lineEnds && rd.mode == '>' && next != nil {
			next.Name = cleanName(rd.name)
			rd.mode = 'b'
			if headed || rec.Length > 0 || len(rec.Removed) > 0 {
				rd.pending = next // the next call returns it
				return rec, nil
			}
			rec, headed, next = next, true, nil
		}
		if err == io.EOF {
			rd.done = true
			if !headed && rec.Length == 0 && len(rec.Removed) == 0 {
				return nil, io.EOF
			}
			return rec, nil
		}
	}
}

// skipSpaceAndComments skips leading blank space and comment lines.
func (rd *Reader) skipSpaceAndComments() error {
	for {
		if err := rd.skipSpace(); err != nil {
			return err
		}
		c, err := rd.br.Peek(1)
		if err != nil {
			return err
		}
		if c[0] != ';' && c[0] != '#' {
			return nil
		}
		for { // the comment line, however long
			_, err := rd.br.ReadSlice('\n')
			if err == nil {
				break
			}
			if err != bufio.ErrBufferFull {
				return err
			}
		}
	}
}

// skipSpace skips leading blank space (and a byte order mark).
func (rd *Reader) skipSpace() error {
	for {
		r, size, err := rd.br.ReadRune()
		if err != nil {
			return err
		}
		switch r {
		case ' ', '\t', '\r', '\n', '\f', '\v', '\ufeff':
			continue
		}
		if size > 0 {
			return rd.br.UnreadRune()
		}
	}
}

// cleanName trims a header line and bounds it to MaxNameBytes, cutting on
// a character boundary; characters that are not valid UTF-8 become U+FFFD.
func cleanName(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) > MaxNameBytes {
		cut := MaxNameBytes
		for cut > 0 && !utf8.RuneStart(b[cut]) {
			cut--
		}
		b = b[:cut]
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// appendBases adds the nucleotides of a piece of a sequence line to rec
// and counts the rest; whitespace is layout and is skipped silently.
func appendBases(rec *Record, line []byte, maxKeep int) {
	for i := 0; i < len(line); {
		c := line[i]
		if n := isNucleotide[c]; n != 0 {
			if len(rec.Sequence) < maxKeep {
				rec.Sequence = append(rec.Sequence, n)
			}
			rec.Length++
			i++
			continue
		}
		switch c {
		case ' ', '\t', '\r', '\n', '\f', '\v':
			i++
			continue
		}
		if c < utf8.RuneSelf {
			rec.removed(rune(c))
			i++
			continue
		}
		// (a character cut by the read buffer, possible only in lines
		// longer than 64 KiB, counts as U+FFFD)
		r, size := utf8.DecodeRune(line[i:])
		rec.removed(r)
		i += size
	}
}
