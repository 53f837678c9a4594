#pragma once
// The order a conversation is about when its format names none of its own: read from what its
// tool calls say (a refund's arguments, get_order's result), so that a chat transcript or an
// agent's trace is queued, searched and looked up by its order as a native ticket is.

#include "conversation.h"

namespace verity {

struct NamedOrder
{
    QString orderId; // empty: no call names one
    QString sellerId; // named with that order (a read's result), else empty
    QString sellerName; // as the data names it; the seller's id when it gives no name
    QString paymentIntent; // the provider's payment of that order ("pi_…", "ch_…"), else empty
    QString currency; // "USD" unless the order's record says otherwise
};

// The first order the conversation's calls and results name ("order_id"), in turn order; the
// seller and payment only from a record of that same order, never from another one's. An id
// that looks like no id (blank, over 200 characters, or not text or a number) is skipped.
NamedOrder orderNamedByCalls(const Conversation &conversation);

} // namespace verity
