package inventory

import (
	"cmp"
	"slices"
	"strings"
)

// The kind table of github.com/fluxcd/pkg/ssa v0.77.0's ReconcileOrder (kustomize-controller
// v1.9, flux-operator); other kinds go between. TestOrderTable pins it, and the interop/flux
// module checks it against ssa itself.
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

// kindRank is ssa's rank of a kind: applyFirst's negative, applyLast's positive, any other 0.
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

// compareApply orders IDs as ssa's sort does: by the rank of the kind, then as compareIDs.
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
	return cmp.Or(strings.Compare(a.Group, b.Group), strings.Compare(a.Kind, b.Kind),
		strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
}

// SortApply sorts entries in apply order, the order of Flux's github.com/fluxcd/pkg/ssa:
// CustomResourceDefinitions, Namespaces, ClusterRoles, the cluster-wide classes,
// ClusterRoleBindings, ResourceQuotas, ServiceAccounts, Roles, RoleBindings, ConfigMaps, Secrets,
// Services, LimitRanges, Deployments, StatefulSets, CronJobs, PodDisruptionBudgets, every other
// kind, then Mutating- and ValidatingWebhookConfigurations. As in ssa, the kind alone ranks (a
// Namespace kind of another group ranks with Namespaces); within a rank, entries sort by group,
// kind, namespace and name. Entries with the same ID keep their relative order.
//
//	inventory.SortApply(entries) // Namespace/tenant-a before ExternalArtifact/tenant-a/app
func SortApply(entries []Entry) {
	permute(entries, sortOrder(entries, false))
}

// sortPrune sorts entries in prune order, the exact reverse of [SortApply], as ssa's DeleteAll
// sorts: a Kustomization or HelmRelease before the RoleBinding and ServiceAccount it runs as,
// Namespaces and CRDs last, after the objects in them. Equal IDs keep their relative order.
func sortPrune(entries []Entry) {
	permute(entries, sortOrder(entries, true))
}

// sortOrder returns the indices of entries in apply or prune order, equal IDs in index order.
func sortOrder(entries []Entry, reverse bool) []int {
	order := make([]int, len(entries))
	// An inventory that Next wrote is in order already: one pass without sorting keeps Diff O(n).
	inOrder := true
	for i := range order {
		order[i] = i
		if i > 0 && inOrder {
			c := compareApply(entries[i-1].ID(), entries[i].ID())
			inOrder = c == 0 || (c < 0) != reverse
		}
	}
	if !inOrder {
		slices.SortStableFunc(order, func(a, b int) int {
			c := compareApply(entries[a].ID(), entries[b].ID())
			if reverse {
				return -c
			}
			return c
		})
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

// fluxStageGroups are the groups of Flux's appliers, as flux-operator's deleteAllStaged has them.
var fluxStageGroups = map[string]bool{
	"kustomize.toolkit.fluxcd.io": true,
	"helm.toolkit.fluxcd.io":      true,
}

// PruneStages splits entries to delete into the stages that flux-operator's ResourceSet deletes
// them in: first Flux's appliers (kustomize.toolkit.fluxcd.io, helm.toolkit.fluxcd.io), then,
// once the caller has waited for those to be gone, the rest, so that an applier can still clean
// up under the second stage's ServiceAccount and RoleBindings. Each stage is in prune order, none
// empty; entries is not modified. flux-operator takes the apiVersion's prefix (so also
// kustomize.toolkit.fluxcd.io.example.com); PruneStages compares the group exactly.
//
//	for _, stage := range inventory.PruneStages(deletions) {
//		// delete the stage, record each Result, wait for the stage to be gone
//	}
func PruneStages(entries []Entry) [][]Entry {
	var first, rest []Entry
	for _, e := range entries {
		if fluxStageGroups[e.ID().Group] {
			first = append(first, e)
		} else {
			rest = append(rest, e)
		}
	}
	var stages [][]Entry
	for _, stage := range [...][]Entry{first, rest} {
		if len(stage) > 0 {
			sortPrune(stage)
			stages = append(stages, stage)
		}
	}
	return stages
}
