#pragma once
// Which payment an escalated refund is looked up under. Only the data or a person may say:
// 1. the reference an operator entered for this escalation (read at the provider, audited);
// 2. the refund call's own arguments or result, where the registry names a payment field;
// 3. the newest payment the ticket's earlier calls named (a get_order result, say);
// 4. the order's payment, when the transcript's order named one.
// None of them: InputErrc::Missing, and the message says what the operator can do.

#include "domain/expected.h"
#include "domain/paymentreference.h"

#include <QList>

namespace verity {

class ToolRegistry;
struct EscalationDetail;
struct TranscriptEntry;

Expected<PaymentReference> refundPayment(const EscalationDetail &escalation,
                                         const QList<TranscriptEntry> &transcript,
                                         const ToolRegistry &registry);

} // namespace verity
