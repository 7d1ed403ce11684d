/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* mm_tree.c -- the treap behind struct maptap_mm (see mm_tree.h). */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mm_tree.h"

void mm_tree_init(struct mm_tree *t)
{
	t->root = NULL;
	t->n = 0;
	t->rng = 0x9e3779b97f4a7c15ULL;
	t->spare = NULL;
	t->n_spare = 0;
}

static uint32_t next_prio(struct mm_tree *t)
{
	uint64_t x = t->rng;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	t->rng = x;
	return (uint32_t)(x >> 32);
}

struct mm_node *mm_node_new(struct mm_tree *t, const struct maptap_vma *v,
			    uint64_t lo, uint64_t hi)
{
	bool small = v->name_len < MM_NODE_NAME_SMALL;
	struct mm_node *node;

	if (small && t->spare) {
		node = t->spare;
		t->spare = node->left;
		t->n_spare--;
	} else {
		node = malloc(sizeof(*node) + (small ? MM_NODE_NAME_SMALL :
					       v->name_len + 1));
		if (!node)
			return NULL;
	}
	node->small = small;
	node->vma = *v;
	node->vma.start = lo;
	node->vma.end = hi;
	if (v->inode != 0)
		node->vma.offset = v->offset + (lo - v->start);
	memcpy(node->name, v->name, v->name_len);
	node->name[v->name_len] = '\0';
	node->vma.name = node->name;
	node->left = node->right = NULL;
	node->prio = next_prio(t);
	return node;
}

void mm_tree_split(struct mm_node *root, uint64_t key, struct mm_node **l,
		   struct mm_node **r)
{
	/* Iterative: keep the last left-tree node whose right child is
	 * still open, and the last right-tree node whose left child is. */
	struct mm_node **lhook = l, **rhook = r;

	while (root) {
		if (root->vma.start < key) {
			*lhook = root;
			lhook = &root->right;
			root = root->right;
		} else {
			*rhook = root;
			rhook = &root->left;
			root = root->left;
		}
	}
	*lhook = NULL;
	*rhook = NULL;
}

struct mm_node *mm_tree_join(struct mm_node *l, struct mm_node *r)
{
	struct mm_node *root = NULL;
	struct mm_node **hook = &root;

	while (l && r) {
		if (l->prio >= r->prio) {
			*hook = l;
			hook = &l->right;
			l = l->right;
		} else {
			*hook = r;
			hook = &r->left;
			r = r->left;
		}
	}
	*hook = l ? l : r;
	return root;
}

struct mm_node *mm_tree_find(struct mm_node *root, uint64_t addr)
{
	while (root) {
		if (addr < root->vma.start)
			root = root->left;
		else if (addr >= root->vma.end)
			root = root->right;
		else
			return root;
	}
	return NULL;
}

int mm_tree_walk(struct mm_node *root, uint64_t lo, uint64_t hi,
		 int (*fn)(struct mm_node *node, void *arg), void *arg)
{
	int rc;

	while (root) {
		/* Left subtree ends before root starts: skip it when root
		 * itself ends at or before LO. */
		if (root->vma.end > lo) {
			rc = mm_tree_walk(root->left, lo, hi, fn, arg);
			if (rc)
				return rc;
		}
		if (root->vma.start >= hi)
			return 0;
		if (root->vma.end > lo) {
			rc = fn(root, arg);
			if (rc)
				return rc;
		}
		root = root->right;
	}
	return 0;
}

size_t mm_tree_release(struct mm_tree *t, struct mm_node *root)
{
	size_t n = 0;

	while (root) {
		struct mm_node *right = root->right;

		n += mm_tree_release(t, root->left);
		if (root->small && t->n_spare < MM_TREE_SPARE_MAX) {
			root->left = t->spare;
			t->spare = root;
			t->n_spare++;
		} else {
			free(root);
		}
		n++;
		root = right;
	}
	return n;
}

void mm_tree_free_spare(struct mm_tree *t)
{
	while (t->spare) {
		struct mm_node *next = t->spare->left;

		free(t->spare);
		t->spare = next;
	}
	t->n_spare = 0;
}

size_t mm_tree_destroy(struct mm_node *root)
{
	size_t n = 0;

	while (root) {
		struct mm_node *right = root->right;

		n += mm_tree_destroy(root->left);
		free(root);
		n++;
		root = right;
	}
	return n;
}

struct mm_node *mm_tree_copy(const struct mm_node *root, int *err)
{
	size_t sz;
	struct mm_node *c;

	if (!root)
		return NULL;
	sz = sizeof(*root) + root->vma.name_len + 1;
	/* A small node keeps its full size: it may be reused for any
	 * small name (mm_tree_release()). */
	c = malloc(root->small ? sizeof(*root) + MM_NODE_NAME_SMALL : sz);
	if (!c) {
		*err = -ENOMEM;
		return NULL;
	}
	memcpy(c, root, sz);
	c->vma.name = c->name;
	c->left = mm_tree_copy(root->left, err);
	c->right = *err ? NULL : mm_tree_copy(root->right, err);
	if (*err) {
		mm_tree_destroy(c->left);
		mm_tree_destroy(c->right);
		free(c);
		return NULL;
	}
	return c;
}
