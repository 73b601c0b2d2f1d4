/* Intrusive doubly linked list (Linux list_head). Objects embed a node; lists keep
 * insertion order, which is creation order wherever order reaches an output. */
#ifndef SMCR_LIST_INT_H
#define SMCR_LIST_INT_H

#include <stdbool.h>
#include <stddef.h>

#define SMCR_CONTAINER_OF(ptr, type, member) ((type *)(void *)((char *)(ptr)-offsetof(type, member)))

typedef struct smcr_list {
	struct smcr_list *prev, *next;
} smcr_list;

static inline void smcr_list_init(smcr_list *l) { l->prev = l->next = l; }
static inline bool smcr_list_empty(const smcr_list *l) { return l->next == l; }
static inline bool smcr_list_linked(const smcr_list *n) { return n->next && n->next != n; }
static inline void smcr_list_add_tail(smcr_list *head, smcr_list *n)
{
	n->prev = head->prev;
	n->next = head;
	head->prev->next = n;
	head->prev = n;
}
static inline void smcr_list_del(smcr_list *n)
{
	if (!n->next)
		return;
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->prev = n->next = n;
}
#define smcr_list_for_each(pos, head) for ((pos) = (head)->next; (pos) != (head); (pos) = (pos)->next)
#define smcr_list_for_each_safe(pos, tmp, head) \
	for ((pos) = (head)->next, (tmp) = (pos)->next; (pos) != (head); (pos) = (tmp), (tmp) = (pos)->next)

#endif
