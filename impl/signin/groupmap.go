package signin

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sitelib/sitesvc/impl/auth"
)

// GroupMap maps the provider's groups to roles (admin, publisher,
// editor:<library>) and PURL rights groups (group:<name>): the setting
// --group-map 'provider-group=target,target;…'.
type GroupMap map[string][]string

// ParseGroupMap reads --group-map: entries separated by ";", each a
// provider group, "=", and one or more targets separated by ","; a group
// named twice has the targets of both. An empty setting maps nothing.
func ParseGroupMap(s string) (GroupMap, error) {
	m := GroupMap{}
	for entry := range strings.SplitSeq(s, ";") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		group, targets, ok := strings.Cut(entry, "=")
		group = strings.TrimSpace(group)
		if !ok || group == "" {
			return nil, fmt.Errorf("--group-map: %q is not provider-group=target (targets: admin, publisher, editor:<library>, group:<name>)", entry)
		}
		for t := range strings.SplitSeq(targets, ",") {
			t = strings.TrimSpace(t)
			if !validTarget(t) {
				return nil, fmt.Errorf("--group-map: %q maps %q to %q, which is not admin, publisher, editor:<library> or group:<name> (lower-case letters, digits, '.', '_', '-')", entry, group, t)
			}
			if !slices.Contains(m[group], t) {
				m[group] = append(m[group], t)
			}
		}
	}
	return m, nil
}

// validTarget: the roles and rights groups a provider group may give
// (location:<name> comes from the client's network, never a sign-in).
func validTarget(t string) bool {
	return auth.ValidRole(t) && !strings.HasPrefix(t, auth.RoleLocationPrefix)
}

// Roles are the targets of the groups a person is in, sorted, each once.
func (m GroupMap) Roles(groups []string) []string {
	var roles []string
	for _, g := range groups {
		for _, t := range m[g] {
			if !slices.Contains(roles, t) {
				roles = append(roles, t)
			}
		}
	}
	slices.Sort(roles)
	return roles
}
