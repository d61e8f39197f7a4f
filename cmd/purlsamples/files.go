package main

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"strings"
	"time"
)

// picture draws a deterministic test image of the given style.
func picture(w, h int, style string, n int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, pixel(style, n, x, y, w, h))
		}
	}
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&buf, img); err != nil {
		panic(fmt.Sprintf("encoding PNG: %v", err)) // cannot happen with a bytes.Buffer
	}
	return buf.Bytes()
}

func pixel(style string, n, x, y, w, h int) color.RGBA {
	fx, fy := float64(x)/float64(w), float64(y)/float64(h)
	switch style {
	case "room":
		// A room in perspective: floor, walls, windows.
		c := color.RGBA{uint8(200 - 80*fy), uint8(180 - 60*fy), uint8(150 + 40*fx), 255}
		if fy > 0.7 {
			c = color.RGBA{120, uint8(80 + 20*n), 50, 255}
		}
		if fy > 0.15 && fy < 0.45 && int(fx*8)%2 == n%2 {
			c = color.RGBA{170, 210, 240, 255}
		}
		return c
	case "page":
		// A printed page: margins, lines of "text", a page number.
		if x < w/10 || x > w*9/10 || y < h/12 || y > h*11/12 {
			return color.RGBA{250, 248, 240, 255}
		}
		line := (y - h/12) / 14
		if (y-h/12)%14 < 7 && (x*7+line*13+n*31)%97 > 8 && !(line%9 == 8 && x > w/2) {
			return color.RGBA{60, 60, 60, 255}
		}
		if y > h*21/24 && x > w/2-n*4 && x < w/2+n*4 {
			return color.RGBA{0, 0, 0, 255}
		}
		return color.RGBA{250, 248, 240, 255}
	case "map":
		// Land and water with a graticule.
		land := math.Sin(fx*9+float64(n))*0.25+math.Cos(fy*7)*0.25 > 0
		c := color.RGBA{90, 150, 210, 255}
		if land {
			c = color.RGBA{uint8(120 + 60*fy), 170, 90, 255}
		}
		if x%50 == 0 || y%50 == 0 {
			c = color.RGBA{80, 80, 80, 255}
		}
		return c
	default:
		// A gradient with concentric rings.
		dx, dy := fx-0.5, fy-0.5
		r := math.Sqrt(dx*dx + dy*dy)
		ring := uint8(0)
		if int(r*20)%2 == 0 {
			ring = 60
		}
		return color.RGBA{uint8(255 * fx), uint8(40*n) + ring, uint8(255 * fy), 255}
	}
}

// pdf composes a small PDF with one page per entry of pages, each a list of
// text lines, with a correct cross-reference table.
func pdf(title string, pages [][]string) []byte {
	var objs []string
	add := func(s string) int { objs = append(objs, s); return len(objs) }
	catalog := add("") // filled below
	pagesObj := add("")
	font := add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	var kids []string
	for _, lines := range pages {
		var content strings.Builder
		content.WriteString("BT /F1 14 Tf 72 760 Td 18 TL\n")
		for _, l := range lines {
			fmt.Fprintf(&content, "(%s) Tj T*\n", pdfEscape(l))
		}
		content.WriteString("ET")
		stream := add(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", content.Len(), content.String()))
		page := add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>", pagesObj, font, stream))
		kids = append(kids, fmt.Sprintf("%d 0 R", page))
	}
	info := add(fmt.Sprintf("<< /Title (%s) /Producer (sitesvc purlsamples) >>", pdfEscape(title)))
	objs[catalog-1] = fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", pagesObj)
	objs[pagesObj-1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(kids))

	var buf bytes.Buffer
	buf.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = buf.Len()
		fmt.Fprintf(&buf, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := buf.Len()
	fmt.Fprintf(&buf, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&buf, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&buf, "trailer\n<< /Size %d /Root %d 0 R /Info %d 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, catalog, info, xref)
	return buf.Bytes()
}

func pdfEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`).Replace(s)
}

// wav is a mono 16-bit PCM tone sequence (a short melody) of the given
// length in seconds at 8000 samples per second.
func wav(seconds int) []byte {
	const rate = 8000
	n := rate * seconds
	notes := []float64{440, 494, 523, 587, 659, 587, 523, 494}
	samples := make([]int16, n)
	for i := range samples {
		t := float64(i) / rate
		note := notes[int(t*2)%len(notes)]
		phase := math.Mod(t*2, 1)
		env := math.Min(1, phase*20) * math.Min(1, (1-phase)*5)
		samples[i] = int16(9000 * env * math.Sin(2*math.Pi*note*t))
	}
	var buf bytes.Buffer
	le := binary.LittleEndian
	buf.WriteString("RIFF")
	binary.Write(&buf, le, uint32(36+2*n))
	buf.WriteString("WAVEfmt ")
	binary.Write(&buf, le, uint32(16))
	binary.Write(&buf, le, uint16(1)) // PCM
	binary.Write(&buf, le, uint16(1)) // mono
	binary.Write(&buf, le, uint32(rate))
	binary.Write(&buf, le, uint32(rate*2))
	binary.Write(&buf, le, uint16(2))
	binary.Write(&buf, le, uint16(16))
	buf.WriteString("data")
	binary.Write(&buf, le, uint32(2*n))
	binary.Write(&buf, le, samples)
	return buf.Bytes()
}

// readingsCSV is a small made-up data set: daily visitor counts.
func readingsCSV() []byte {
	var b strings.Builder
	b.WriteString("date,location,visitors,items_loaned\n")
	day := time.Date(2025, 9, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 30; i++ {
		d := day.AddDate(0, 0, i)
		for j, loc := range []string{"main", "science", "music"} {
			v := 120 + (i*37+j*53)%90
			fmt.Fprintf(&b, "%s,%s,%d,%d\n", d.Format("2006-01-02"), loc, v, v/3+(i+j)%7)
		}
	}
	return []byte(b.String())
}

// zipOf stores the named files uncompressed with a fixed time, so the
// archive's bytes do not depend on the compressor or the clock.
func zipOf(files []namedBytes) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: f.name, Method: zip.Store, Modified: time.Date(2025, 10, 1, 12, 0, 0, 0, time.UTC)})
		if err != nil {
			panic(err) // writing to a bytes.Buffer does not fail
		}
		w.Write(f.data)
	}
	zw.Close()
	return buf.Bytes()
}

type namedBytes struct {
	name string
	data []byte
}
