package auth

import (
	"context"
	"errors"
	"testing"
)

// TestPrincipalFrom: a context without the edge's answer is anonymous; an
// authorised principal is handed back as put; a resolver runs when first
// asked and only once, its answer (principal or error) kept.
func TestPrincipalFrom(t *testing.T) {
	if _, err := PrincipalFrom(context.Background()); !errors.Is(err, ErrAnonymous) {
		t.Errorf("bare context: %v", err)
	}
	ctx := WithPrincipal(context.Background(), Principal{Name: "tom", Via: CredentialToken})
	if p, err := PrincipalFrom(ctx); err != nil || p.Name != "tom" || p.Via.String() != "token" {
		t.Errorf("authorised principal: %+v %v", p, err)
	}
	calls := 0
	ctx = WithResolver(context.Background(), func() (Principal, error) {
		calls++
		return Principal{}, ErrUnknownToken
	})
	if calls != 0 {
		t.Error("the resolver ran before anyone asked")
	}
	for range 3 {
		if _, err := PrincipalFrom(ctx); !errors.Is(err, ErrUnknownToken) {
			t.Errorf("resolver's error: %v", err)
		}
	}
	if calls != 1 {
		t.Errorf("resolver ran %d times, want once", calls)
	}
}
