package main

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The large samples look like real holdings: a 24-megapixel photograph, a
// JPEG 2000 plate and a video clip. They are made with vips and ffmpeg at
// build time (make samples-large) into a directory that is not committed,
// since their bytes depend on the tools' versions and they are megabytes.

// errNoTool: vips or ffmpeg is not installed.
var errNoTool = errors.New("tool missing")

// largeVersion names what GenerateLarge makes; a directory stamped with it
// is up to date and left alone.
const largeVersion = "sitesvc large samples 1"

// Colour regions of the large images (the browser tests compare pixels
// with them): quadrants, with a dark grid every 50 pixels of the pattern.
var largeQuadrants = [2][2]color.RGBA{
	{{200, 30, 30, 255}, {30, 160, 30, 255}},
	{{30, 30, 200, 255}, {220, 200, 30, 255}},
}

// largePattern draws the 1500 × 1000 pattern the large images are scaled from.
func largePattern() []byte {
	const w, h = 1500, 1000
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := largeQuadrants[y*2/h][x*2/w]
			if x%50 == 0 || y%50 == 0 {
				c = color.RGBA{40, 40, 40, 255}
			}
			img.SetRGBA(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		panic(fmt.Sprintf("encoding PNG: %v", err)) // cannot happen with a bytes.Buffer
	}
	return buf.Bytes()
}

// GenerateLarge writes the large sample objects into out/<druid>/ unless
// out already holds this version of them.
func GenerateLarge(out string) error {
	stamp := filepath.Join(out, ".stamp")
	if b, err := os.ReadFile(stamp); err == nil && string(b) == largeVersion {
		return nil
	}
	for _, tool := range []string{"vips", "ffmpeg"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("%w: the large samples need %s (Debian: libvips-tools, ffmpeg): %w", errNoTool, tool, err)
		}
	}
	tmp, err := os.MkdirTemp("", "purlsamples-large-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	pattern := filepath.Join(tmp, "pattern.png")
	if err := os.WriteFile(pattern, largePattern(), 0o644); err != nil {
		return err
	}
	run := func(name string, args ...string) error {
		if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
			return fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, out)
		}
		return nil
	}
	photo := filepath.Join(tmp, "ceiling.jpg")
	if err := run("vips", "resize", pattern, photo+"[Q=85,strip]", "4", "--kernel", "linear"); err != nil {
		return err
	}
	plate := filepath.Join(tmp, "plate.jp2")
	if err := run("vips", "resize", pattern, plate+"[Q=40]", "2", "--kernel", "linear"); err != nil {
		return err
	}
	clip := filepath.Join(tmp, "clip.webm")
	if err := run("ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25", "-t", "4",
		"-c:v", "libvpx", "-b:v", "400k", "-pix_fmt", "yuv420p", "-fflags", "+bitexact", "-y", clip); err != nil {
		return err
	}
	read := func(p string) []byte {
		b, rerr := os.ReadFile(p)
		if rerr != nil && err == nil {
			err = rerr
		}
		return b
	}
	objects := []sample{
		{id: "bs100xy1000", objectType: "item", contentType: "image",
			title: "Survey of the reading room ceiling, high resolution", creator: "Okafor, Adaeze", date: "2026-02-01",
			abstract: "A 24-megapixel photograph (6000 × 4000 pixels) and a JPEG 2000 plate of the painted ceiling, in four colour fields with a survey grid, made for the sample collection to show deep zoom.",
			subjects: []string{"Ceilings", "Library architecture"}, dcType: "StillImage", modsType: "still image", extent: "2 images",
			rights: "world", thumb: "ceiling.jpg",
			resources: []resource{
				{typ: "image", label: "Ceiling (photograph)", files: []file{{name: "ceiling.jpg", mimetype: "image/jpeg", data: read(photo), width: 6000, height: 4000}}},
				{typ: "image", label: "Ceiling (plate, JPEG 2000)", files: []file{{name: "plate.jp2", mimetype: "image/jp2", data: read(plate), width: 3000, height: 2000}}},
			},
			versions: []string{"Initial version"}},
		{id: "bt200vw2000", objectType: "item", contentType: "media",
			title: "A four-second test film", creator: "sitesvc digital library", date: "2026",
			abstract: "Four seconds of a moving test pattern, as a WebM video, beside the sound recording of the sample collection.",
			subjects: []string{"Motion pictures", "Test data"}, dcType: "MovingImage", modsType: "moving image", extent: "1 video file (4 s)",
			rights:    "world",
			resources: []resource{{typ: "video", label: "Test film", files: []file{{name: "clip.webm", mimetype: "video/webm", data: read(clip), duration: 4}}}},
			versions:  []string{"Initial version"}},
	}
	if err != nil {
		return err
	}
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	for _, s := range objects {
		if err := writeSample(out, s); err != nil {
			return err
		}
	}
	return os.WriteFile(stamp, []byte(largeVersion), 0o644)
}
