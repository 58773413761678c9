package livecluster_test

import (
	"context"
	"fmt"

	"github.com/tenantkit/tenantkit/generator"
	"github.com/tenantkit/tenantkit/internal/livecluster"
	"github.com/tenantkit/tenantkit/inventory"
)

func ExampleCluster() {
	var c livecluster.Cluster
	c.Add(livecluster.Object{
		ID:     inventory.ID{Kind: inventory.KindNamespace, Name: "tenant-a"},
		Labels: map[string]string{"team": "payments"},
	})
	c.Add(livecluster.Object{
		ID: inventory.ID{Group: livecluster.GroupOf("source.toolkit.fluxcd.io/v1"), Kind: inventory.KindExternalArtifact, Namespace: "tenant-a", Name: "app"},
	})
	ctx := context.Background()
	ns, _ := c.Object(ctx, inventory.ID{Kind: inventory.KindNamespace, Name: "tenant-a"})
	fmt.Println(ns.Labels)
	_, err := c.Object(ctx, inventory.ID{Kind: inventory.KindNamespace, Name: "tenant-b"})
	fmt.Println(err)
	artifacts, _ := c.ExternalArtifacts(ctx, "tenant-a")
	fmt.Println(artifacts[0].ID)
	// Output:
	// map[team:payments]
	// finalizer: object not found
	// ExternalArtifact/tenant-a/app
}

func ExampleAsApplied() {
	c := livecluster.AsApplied([]generator.Namespace{{Name: "tenant-a", Labels: map[string]string{"team": "payments"}}})
	ctx := context.Background()
	ns, _ := c.Object(ctx, inventory.ID{Kind: inventory.KindNamespace, Name: "tenant-a"})
	fmt.Println(ns.Labels)
	old, _ := c.Object(ctx, inventory.ID{Kind: inventory.KindNamespace, Name: "tenant-old"})
	fmt.Println(old.ID, old.Labels)
	// Output:
	// map[team:payments]
	// Namespace/tenant-old map[]
}
