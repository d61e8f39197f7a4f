package main

import (
	"context"
	"fmt"
	"io"
)

// runTokens is `sitesvc tokens add --role R`.
func runTokens(ctx context.Context, args []string, env func(string) string, stdout, stderr io.Writer) error {
	return fmt.Errorf("tokens: not implemented yet")
}
