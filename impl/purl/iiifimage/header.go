package iiifimage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// headerTimeout bounds one header read: vipsheader reads the few bytes a
// format keeps its size in and decodes no pixel.
const headerTimeout = 10 * time.Second

// ErrTooLarge: the source image has more pixels than MaxPixels (found in
// its header, before anything is decoded). The error is a *TooLargeError.
var ErrTooLarge = errors.New("image too large for the image service")

// TooLargeError is the size of a source refused by its header.
type TooLargeError struct{ Width, Height int }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%d × %d pixels is more than the image service's limit of %d pixels", e.Width, e.Height, int64(MaxPixels))
}

func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// headerSizeRE reads vipsheader's one-line summary: "<file>: 640x480 uchar, 3 bands, …".
var headerSizeRE = regexp.MustCompile(`: (\d{1,9})x(\d{1,9}) `)

// probe reads the pixel size of a source image from its header with
// vipsheader (PNG IHDR, JPEG SOF, TIFF IFD, JPEG 2000 SIZ, WebP and GIF
// headers), which opens the image lazily and decodes no pixel, and refuses
// one over MaxPixels at once.
func (t *Tiler) probe(ctx context.Context, path string) (h header, err error) {
	ctx, cancel := context.WithTimeout(ctx, headerTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, t.vipsheader, path)
	cmd.Env = vipsEnv()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := runTied(cmd); err != nil {
		return h, fmt.Errorf("reading the image header: %w: %s", err, bytes.TrimSpace(out.Bytes()))
	}
	// The file name comes first and may hold anything: the size is the
	// last match on the line.
	m := headerSizeRE.FindAllSubmatch(out.Bytes(), -1)
	if len(m) == 0 {
		return h, fmt.Errorf("reading the image header: unexpected vipsheader output %.200q", out.Bytes())
	}
	last := m[len(m)-1]
	h.width, _ = strconv.Atoi(string(last[1]))
	h.height, _ = strconv.Atoi(string(last[2]))
	if h.width <= 0 || h.height <= 0 {
		return h, fmt.Errorf("reading the image header: %d×%d pixels", h.width, h.height)
	}
	if int64(h.width)*int64(h.height) > MaxPixels {
		return h, &TooLargeError{h.width, h.height}
	}
	// The summary ends with the loader vips chose ("…, srgb, jpegload").
	line := string(bytes.TrimSpace(out.Bytes()))
	if i := strings.LastIndex(line, ", "); i >= 0 {
		h.loader = line[i+2:]
	}
	return h, nil
}

// ImageSize reads the pixel size of the image at path from its header,
// as a pyramid build does before making anything (probe): in a slot of
// the build queue (the read is a vips process too), within headerTimeout,
// refusing an image over MaxPixels (ErrTooLarge). It is for records that
// give no pixel size: the caller keeps the answer for as long as the file
// cannot change. ErrUnavailable without libvips; ErrBusy when the queue is
// full or ctx ends while waiting for a slot (the file was not read).
func (t *Tiler) ImageSize(ctx context.Context, path string) (width, height int, err error) {
	if !t.Available() {
		return 0, 0, ErrUnavailable
	}
	release, err := t.queue.acquire(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("iiifimage: %w", err)
	}
	defer release()
	h, err := t.probe(ctx, path)
	if err != nil {
		return 0, 0, fmt.Errorf("iiifimage: %w", err)
	}
	return h.width, h.height, nil
}

// header is what probe reads: the pixel size and the vips loader of the
// format (jpegload, pngload, tiffload, jp2kload …).
type header struct {
	width, height int
	loader        string
}

// runTied runs cmd to its end, tied to the server's life (startTied).
func runTied(cmd *exec.Cmd) error {
	done, err := startTied(cmd)
	if err != nil {
		return err
	}
	err = cmd.Wait()
	done()
	return err
}
