/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* mm_tree.h -- private: the ordered set of VMAs behind struct maptap_mm.
 *
 * A treap (a binary search tree keyed by vm_start whose nodes also form a
 * heap on random priorities) with split and join.  The model's only
 * structural change is "replace every node in [lo, hi) by these", which
 * is two splits and a few joins: O(log n + k) expected, no rebalancing
 * cases to get wrong.  The priorities come from a per-tree xorshift
 * generator, so there is no global state and runs are reproducible.
 *
 * Nodes do not overlap (they are VMAs), so ordering by start is also
 * ordering by end, which lets range walks prune whole subtrees.
 */
#ifndef MAPTAP_MM_TREE_H
#define MAPTAP_MM_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <maptap/vma.h>

struct mm_node {
	struct maptap_vma vma;	/* vma.name points at name[] */
	struct mm_node *left, *right;
	uint32_t prio;
	bool small;		/* name[] has MM_NODE_NAME_SMALL bytes */
	char name[];
};

/* Nodes whose name fits in this many bytes (with its NUL) are made one
 * size, so that one freed can be reused for the next (mm_tree_release()):
 * a program that maps and unmaps in a loop then costs no malloc per
 * call (issue 16).  Anonymous mappings and most paths fit. */
#define MM_NODE_NAME_SMALL 64
/* How many freed small nodes a tree keeps for reuse. */
#define MM_TREE_SPARE_MAX 32

struct mm_tree {
	struct mm_node *root;
	size_t n;
	uint64_t rng;		/* xorshift64 state, never 0 */
	struct mm_node *spare;	/* freed small nodes, linked by left */
	size_t n_spare;
};

void mm_tree_init(struct mm_tree *t);

/* A node holding V's state over [LO, HI) (bytes): the file offset moves
 * with LO for a file; the name is copied.  NULL on ENOMEM. */
struct mm_node *mm_node_new(struct mm_tree *t, const struct maptap_vma *v,
			    uint64_t lo, uint64_t hi);

/* Split ROOT into the nodes with start < KEY (*L) and the rest (*R). */
void mm_tree_split(struct mm_node *root, uint64_t key, struct mm_node **l,
		   struct mm_node **r);

/* Join two treaps where every start in L is below every start in R. */
struct mm_node *mm_tree_join(struct mm_node *l, struct mm_node *r);

/* The node containing ADDR, or NULL. */
struct mm_node *mm_tree_find(struct mm_node *root, uint64_t addr);

/* Call FN on each node intersecting [LO, HI) in order; stop on non-zero. */
int mm_tree_walk(struct mm_node *root, uint64_t lo, uint64_t hi,
		 int (*fn)(struct mm_node *node, void *arg), void *arg);

/* Free every node of ROOT; returns how many. */
size_t mm_tree_destroy(struct mm_node *root);

/* As mm_tree_destroy(), but keep up to MM_TREE_SPARE_MAX small nodes in
 * T for mm_node_new() to reuse.  Returns how many nodes ROOT had. */
size_t mm_tree_release(struct mm_tree *t, struct mm_node *root);

/* Free T's spare nodes (when T itself goes). */
void mm_tree_free_spare(struct mm_tree *t);

/* A copy of ROOT with the same shape; NULL with *ERR = -ENOMEM on failure
 * (nothing leaked). */
struct mm_node *mm_tree_copy(const struct mm_node *root, int *err);

#endif
