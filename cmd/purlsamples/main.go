// Command purlsamples writes the sample PURL objects the embedded default
// serves (samples/purl): for each object its public.xml, mods.xml and its
// files (PNG images, a PDF, a WAV tone, CSV and ZIP data), all drawn or
// composed by this program, deterministically, so that running it again
// gives the same bytes.
//
//	go run ./cmd/purlsamples [-out samples/purl]
//	go run ./cmd/purlsamples -large samples/large   (make samples-large; not committed)
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
)

func main() {
	out := flag.String("out", "samples/purl", "directory to write the sample objects into")
	large := flag.String("large", "", "write the large samples (24 MP image, JPEG 2000, video; made with vips and ffmpeg) into this directory instead")
	optional := flag.Bool("optional", false, "with -large: without vips or ffmpeg, say so and succeed (make build on a machine without them)")
	flag.Parse()
	gen := func() error { return Generate(*out) }
	if *large != "" {
		gen = func() error { return GenerateLarge(*large) }
	}
	err := gen()
	if err != nil && *optional && errors.Is(err, errNoTool) {
		fmt.Fprintln(os.Stderr, "purlsamples: not making the large samples:", err)
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "purlsamples:", err)
		os.Exit(1)
	}
}
