// Package api holds the Kubernetes wire types kinformer speaks: the metadata
// every object carries (TypeMeta, ObjectMeta, ListMeta), the Status an API
// server answers errors with, the WatchEvent frame of a watch stream, a
// faithful subset of four resources (Pod, ReplicaSet, ConfigMap, Namespace)
// and the label and field selectors that filter them.
//
// # Why a subset
//
// client-go gets these types from k8s.io/api and k8s.io/apimachinery, which
// are generated from the API server's own Go types and weigh several
// megabytes. kinformer writes them by hand, keeping only the fields the
// articles and the demo controller touch, but spelling every JSON name
// exactly as Kubernetes does, so the same structs decode what a real
// kube-apiserver sends. Fields a struct does not declare are dropped when a
// client decodes an object; the fake API server never decodes into these
// structs for storage, so nothing a client sends it is lost.
//
// # Objects
//
// Every resource type embeds TypeMeta (kind, apiVersion) inline and
// ObjectMeta under "metadata", as Kubernetes types do, and so satisfies
// Object: metadata accessors promoted from ObjectMeta plus DeepCopyObject.
// Lists are the generic List[T]; PodList is List[*Pod] and so on. (client-go
// has one generated list type per resource; one generic type says the same
// thing once.)
//
// Objects handed out by an informer's cache are shared: copy with DeepCopy
// before changing one.
//
// # Selectors
//
// ParseSelector parses a label selector in the full Kubernetes syntax
// (equality- and set-based) and ParseFieldSelector a field selector; both
// report where the input went wrong. In client-go these live in the
// apimachinery packages labels and fields.
//
// # In the articles
//
// Read this package beside:
//
//   - "Kubernetes Controller 实现机制深度解析" (赵化冰, 2023-03-09), section "K8s HTTP
//     API 的 List Watch 机制": the objects, their resourceVersion and the
//     ADDED/MODIFIED/DELETED frames (WatchEvent) its curl session shows;
//   - "Kubernetes-Informer" (smartkeyerror, 2020-08-26), section "1.
//     ListAndWatch机制": what a list and a watch event carry.
package api
