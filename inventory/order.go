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

func compareEntries(a, b Entry) int { return compareApply(a.ID(), b.ID()) }

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
	slices.SortStableFunc(entries, compareEntries)
}

// SortPrune sorts entries in prune order, the exact reverse of
// [SortApply], as ssa's DeleteAll sorts: the webhook configurations first,
// then the kinds outside the table (a Kustomization or HelmRelease before
// the RoleBinding and ServiceAccount it runs as), then the table's kinds
// backwards, Namespaces and CustomResourceDefinitions last, after the
// objects in them. Entries with the same ID keep their relative order.
func SortPrune(entries []Entry) {
	slices.SortStableFunc(entries, func(a, b Entry) int { return compareEntries(b, a) })
}
