// Command purlsamples writes the sample PURL objects the embedded default
// serves (samples/purl): for each object its public.xml, mods.xml and its
// files (PNG images, a PDF, a WAV tone, CSV and ZIP data), all drawn or
// composed by this program, deterministically, so that running it again
// gives the same bytes.
//
//	go run ./cmd/purlsamples [-out samples/purl]
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	out := flag.String("out", "samples/purl", "directory to write the sample objects into")
	flag.Parse()
	if err := Generate(*out); err != nil {
		fmt.Fprintln(os.Stderr, "purlsamples:", err)
		os.Exit(1)
	}
}
