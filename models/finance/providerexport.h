#pragma once
// The provider's refunds from its CSV export, for a reconciliation without API access.
//
// The header row names the columns, in any order and any letter case; extra columns are
// ignored. Required: id, amount, currency, created, and payment_intent (or "Payment Intent").
// Optional: status, intent_key (or "metadata[intent_key]", "intent_key (metadata)"),
// ticket_id (likewise), account.
//  - amount: the provider's decimal major units, "118.00" or "-118.00"; at most two decimals.
//    Read into integer cents without floating point.
//  - currency: three letters; every row must be in the ledger's currency.
//  - created: "2026-03-17 14:32:07" or ISO 8601 ("2026-03-17T14:32:07Z"), UTC; or unix seconds (ten digits).
// Fields follow RFC 4180: quoted with '"', '""' for a quote, line breaks inside quotes allowed.
//
// The whole file is read before anything is returned: one bad line refuses the file, and the
// error names the file, the line, the column and what was expected.

#include "domain/expected.h"
#include "domain/providerstatement.h"

namespace verity {

// Refunds created outside `period` are left out. `currency`: the ledger's ("USD"); empty takes
// the first refund's, and every other must be in it.
Expected<ProviderStatement> readProviderExport(const QString &path, const Period &period,
                                               const QString &currency = QStringLiteral("USD"));
// The same from bytes already read; `name` stands for the file in messages.
Expected<ProviderStatement> parseProviderExport(const QByteArray &bytes, const QString &name,
                                                const Period &period,
                                                const QString &currency = QStringLiteral("USD"));

} // namespace verity
