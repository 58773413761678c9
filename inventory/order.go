package inventory

import (
	"cmp"
	"slices"
	"strings"
)

// The kind table of Flux's apply order: github.com/fluxcd/pkg/ssa
// ReconcileOrder, as of ssa v0.77.0 (kustomize-controller v1.9, flux-operator
// with ssa v0.77.0). Kinds in applyFirst come first, in this order; kinds in
// applyLast come last, in this order; every other kind comes in between.
// The table is keyed by kind alone, as ssa's is: a kind named Namespace in
// any group ranks with Namespaces. TestOrderTable pins it, and the
// interop/flux module checks it against ssa itself.
var (
	applyFirst = []string{
		"CustomResourceDefinition",
		"Namespace",
		"ClusterRole",
		"ClusterClass",
		"RuntimeClass",
		"PriorityClass",
		"StorageClass",
		"VolumeSnapshotClass",
		"IngressClass",
		"GatewayClass",
		"ClusterRoleBinding",
		"ResourceQuota",
		"ServiceAccount",
		"Role",
		"RoleBinding",
		"ConfigMap",
		"Secret",
		"Service",
		"LimitRange",
		"Deployment",
		"StatefulSet",
		"CronJob",
		"PodDisruptionBudget",
	}
	applyLast = []string{
		"MutatingWebhookConfiguration",
		"ValidatingWebhookConfiguration",
	}
)

// kindRank maps a kind of the table to its rank, as ssa numbers them: the
// kinds of applyFirst negative, those of applyLast positive; every other
// kind ranks 0.
var kindRank = func() map[string]int {
	m := make(map[string]int, len(applyFirst)+len(applyLast))
	for i, k := range applyFirst {
		m[k] = i - len(applyFirst)
	}
	for i, k := range applyLast {
		m[k] = i + 1
	}
	return m
}()

// compareApply orders IDs for applying, as ssa's sort does: by the rank of
// the kind, then group, kind, namespace and name.
func compareApply(a, b ID) int {
	if a.Kind != b.Kind {
		if c := cmp.Compare(kindRank[a.Kind], kindRank[b.Kind]); c != 0 {
			return c
		}
	}
	return compareIDs(a, b)
}

// compareIDs orders IDs by group, kind, namespace and name.
func compareIDs(a, b ID) int {
	if c := strings.Compare(a.Group, b.Group); c != 0 {
		return c
	}
	if c := strings.Compare(a.Kind, b.Kind); c != 0 {
		return c
	}
	if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}

// SortApply sorts entries in apply order, the order of Flux's
// github.com/fluxcd/pkg/ssa: CustomResourceDefinitions, Namespaces,
// ClusterRoles, the cluster-wide classes, ClusterRoleBindings,
// ResourceQuotas, ServiceAccounts, Roles, RoleBindings, ConfigMaps,
// Secrets, Services, LimitRanges, Deployments, StatefulSets, CronJobs,
// PodDisruptionBudgets, then every other kind, then
// MutatingWebhookConfigurations and ValidatingWebhookConfigurations last.
// The table is keyed by kind, as ssa's is; within a rank, entries sort by
// group, kind, namespace and name of their [ID]. Entries with the same ID
// keep their relative order.
//
//	inventory.SortApply(entries) // Namespace/tenant-a before ExternalArtifact/tenant-a/app
func SortApply(entries []Entry) {
	permute(entries, sortOrder(entries, false))
}

// SortPrune sorts entries in prune order, the exact reverse of
// [SortApply], as ssa's DeleteAll sorts: the webhook configurations first,
// then the kinds outside the table (a Kustomization or HelmRelease before
// the RoleBinding and ServiceAccount it runs as), then the table's kinds
// backwards, Namespaces and CustomResourceDefinitions last, after the
// objects in them. Entries with the same ID keep their relative order.
func SortPrune(entries []Entry) {
	permute(entries, sortOrder(entries, true))
}

// applyOrder returns the indices of entries in apply order, equal IDs in
// index order.
func applyOrder(entries []Entry) []int { return sortOrder(entries, false) }

// sortKey is an entry's place in apply order, computed once per entry
// rather than once per comparison.
type sortKey struct {
	rank int
	id   ID
	i    int // the index, which keeps equal IDs in order
}

// sortOrder returns the indices of entries in apply order, or prune order
// when reverse is set, equal IDs in index order either way.
func sortOrder(entries []Entry, reverse bool) []int {
	compare := func(a, b sortKey) int {
		c := cmp.Compare(a.rank, b.rank)
		if c == 0 {
			c = compareIDs(a.id, b.id)
		}
		if reverse {
			c = -c
		}
		if c == 0 {
			c = cmp.Compare(a.i, b.i)
		}
		return c
	}
	order := make([]int, len(entries))
	// The common case, an inventory that Next wrote, is in order already:
	// one pass without keys, which keeps Diff O(n) on it.
	inOrder := true
	for i := range order {
		order[i] = i
		if i > 0 && inOrder {
			c := compareApply(entries[i-1].ID(), entries[i].ID())
			inOrder = c == 0 || (c < 0) != reverse
		}
	}
	if inOrder {
		return order
	}
	keys := make([]sortKey, len(entries))
	for i, e := range entries {
		id := e.ID()
		keys[i] = sortKey{rank: kindRank[id.Kind], id: id, i: i}
	}
	slices.SortFunc(keys, compare)
	for j, k := range keys {
		order[j] = k.i
	}
	return order
}

// permute puts s in order: the j-th becomes s[order[j]].
func permute[T any](s []T, order []int) {
	sorted := make([]T, len(s))
	for j, i := range order {
		sorted[j] = s[i]
	}
	copy(s, sorted)
}
