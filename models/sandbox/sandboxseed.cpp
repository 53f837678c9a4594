#include "sandboxseed.h"

#include "domain/toolregistry.h"
#include "import/importjob.h"
#include "import/transcriptimporter.h"
#include "sandboxrecords.h"
#include "store/storefactory.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QTemporaryDir>

#include <algorithm>

namespace verity {

namespace {

// Bump when the seeded data changes. Everything is inserted by a fixed id, so seeding a state
// seeded by an earlier version adds what is new and leaves what it has as it was.
const QString seedMark = QStringLiteral("march-incident/2");

struct PlannedRefund
{
    SandboxRefund refund;
    QString account;
    QString call; // "T-…/c3"
    bool fixedToolUnknown = false;
};

QJsonObject jsonObject(const QString &text)
{
    return QJsonDocument::fromJson(text.toUtf8()).object();
}

// The fixed tool states its own outcome; an unknown there was the tool admitting it could
// not tell. The old tool's timeouts hid refunds the provider had accepted: the incident.
bool fixedToolUnknown(const ToolCallRow &call)
{
    return !call.hasResult || jsonObject(call.rawResult).contains(QStringLiteral("outcome"));
}

std::optional<PlannedRefund> plannedRefund(const TicketDetail &ticket, const ToolCallRow &call,
                                           const SandboxPayment &payment)
{
    if (call.tool != u"issue_refund" || !call.outcome || !call.amountCents)
        return std::nullopt;
    if (*call.outcome != Outcome::Performed && *call.outcome != Outcome::Unknown)
        return std::nullopt;
    const QJsonObject arguments = jsonObject(call.argumentsJson);
    const QString refundId = jsonObject(call.rawResult).value(QStringLiteral("refund_id")).toString();

    PlannedRefund planned;
    planned.call = ticket.row.extId + u'/' + call.callExtId;
    planned.fixedToolUnknown = *call.outcome == Outcome::Unknown && fixedToolUnknown(call);
    planned.account = payment.account;
    SandboxRefund &refund = planned.refund;
    refund.id = refundId.isEmpty()
            ? derivedSandboxId(QStringLiteral("re_"), QStringLiteral("demo|") + planned.call)
            : refundId;
    refund.paymentIntent = payment.id;
    refund.amount = *call.amountCents;
    refund.currency = payment.currency;
    refund.reason = QStringLiteral("requested_by_customer");
    refund.created = call.calledAt / 1000;
    refund.metadata.insert(QStringLiteral("intent_key"), call.intentKey);
    refund.metadata.insert(QStringLiteral("ticket_id"), ticket.row.extId);
    refund.metadata.insert(QStringLiteral("order_id"),
                           arguments.value(QStringLiteral("order_id")).toString(ticket.order.id));
    refund.metadata.insert(QStringLiteral("item_id"), arguments.value(QStringLiteral("item_id")).toString());
    return planned;
}

// A pickup or a message a demo call made, or may have made.
struct PlannedRecord
{
    SandboxRecord record;
    QString call; // "T-…/c3"
    bool unknown = false;
};

std::optional<PlannedRecord> plannedRecord(const TicketDetail &ticket, const ToolCallRow &call)
{
    const bool pickup = call.tool == u"schedule_pickup";
    if ((!pickup && call.tool != u"message_seller") || !call.outcome)
        return std::nullopt;
    if (*call.outcome != Outcome::Performed && *call.outcome != Outcome::Unknown)
        return std::nullopt;
    const QJsonObject arguments = jsonObject(call.argumentsJson);
    // What the tool sent its system; an argument it lacks comes from the ticket, as for its intent key.
    QMap<QString, QString> params{
            {QStringLiteral("order"), arguments.value(QStringLiteral("order_id")).toString(ticket.order.id)}};
    if (pickup && arguments.contains(QStringLiteral("item_id")))
        params.insert(QStringLiteral("item"), arguments.value(QStringLiteral("item_id")).toString());
    if (!pickup) {
        params.insert(QStringLiteral("seller"),
                      arguments.value(QStringLiteral("seller_id")).toString(ticket.sellerId));
        params.insert(QStringLiteral("text"), arguments.value(QStringLiteral("text")).toString());
    }
    const SandboxRecordKind &kind = pickup ? sandboxPickups() : sandboxMessages();
    PlannedRecord planned;
    planned.call = ticket.row.extId + u'/' + call.callExtId;
    planned.unknown = *call.outcome == Outcome::Unknown;
    planned.record =
            newSandboxRecord(kind, derivedSandboxId(kind.idPrefix, QStringLiteral("demo|") + planned.call),
                             params, call.calledAt / 1000,
                             {{QStringLiteral("intent_key"), call.intentKey},
                              {QStringLiteral("ticket_id"), ticket.row.extId}});
    // The window the courier told the agent, when its result names one.
    if (const QString window = jsonObject(call.rawResult).value(QStringLiteral("window")).toString();
        pickup && !window.isEmpty())
        planned.record.fields.insert(QStringLiteral("window"), window);
    return planned;
}

struct DemoProviderSide
{
    QList<std::pair<SandboxAccount, std::pair<qint64, qint64>>> accounts; // opening balance, as of
    QList<SandboxPayment> payments;
    QList<PlannedRefund> refunds;
    QList<PlannedRecord> records; // pickups and messages
};

Expected<DemoProviderSide> readDemo()
{
    QTemporaryDir folder;
    if (!folder.isValid())
        return makeError(QStringLiteral("cannot make a temporary folder for the demo data: %1")
                                 .arg(folder.errorString()));
    Expected<std::unique_ptr<Store>> opened = openStore(folder.filePath(QStringLiteral("demo.sqlite")));
    if (!opened)
        return opened.error();
    Store &store = **opened;
    const ToolRegistry registry = ToolRegistry::builtIn();
    TranscriptImporter importer(store, registry);
    const ImportReport report = importer.importFile(demoDataResource());
    if (!report.clean())
        return makeError(QStringLiteral("the demo data did not import cleanly: %1").arg(report.summary()));

    TicketQuery query;
    query.sortKey = TicketSortKey::Opened;
    query.descending = false;
    Expected<qint64> count = store.countTickets(query);
    if (!count)
        return count.error();
    Expected<QList<TicketRow>> rows = store.tickets(query, 0, int(*count));
    if (!rows)
        return rows.error();

    DemoProviderSide side;
    QSet<QString> sellers;
    QHash<QString, SandboxPayment> payments;
    for (const TicketRow &row : *rows) {
        Expected<std::optional<TicketDetail>> detail = store.ticket(row.id);
        if (!detail)
            return detail.error();
        if (!*detail)
            continue;
        const TicketDetail &ticket = **detail;
        const QString currency = ticket.order.currency.toLower();
        if (!sellers.contains(ticket.sellerId)) {
            sellers.insert(ticket.sellerId);
            const qint64 asOf = ticket.sellerBalanceAsOf / 1000;
            side.accounts.append({SandboxAccount{ticket.sellerId, row.sellerName, currency, asOf},
                                  {ticket.sellerBalanceCents.value_or(0), asOf}});
        }
        const QString paymentId = ticket.order.paymentIntent.isEmpty()
                ? QStringLiteral("pi_") + ticket.order.id
                : ticket.order.paymentIntent;
        if (!payments.contains(paymentId)) {
            SandboxPayment payment;
            payment.id = paymentId;
            for (const OrderItemRecord &item : ticket.order.items)
                payment.amount += item.amountCents * item.quantity;
            payment.currency = currency;
            payment.account = ticket.sellerId;
            payment.created = row.openedAt / 1000;
            payment.metadata.insert(QStringLiteral("order_id"), ticket.order.id);
            payments.insert(paymentId, payment);
            side.payments.append(payment);
        }
        Expected<QList<TranscriptEntry>> transcript = store.transcript(row.id);
        if (!transcript)
            return transcript.error();
        for (const TranscriptEntry &entry : *transcript) {
            if (!entry.isToolCall)
                continue;
            if (std::optional<PlannedRefund> planned =
                        plannedRefund(ticket, entry.call, payments.value(paymentId)))
                side.refunds.append(*planned);
            if (std::optional<PlannedRecord> planned = plannedRecord(ticket, entry.call))
                side.records.append(*planned);
        }
    }
    std::stable_sort(side.refunds.begin(), side.refunds.end(),
                     [](const PlannedRefund &a, const PlannedRefund &b) {
                         return a.refund.created < b.refund.created;
                     });
    std::stable_sort(side.records.begin(), side.records.end(),
                     [](const PlannedRecord &a, const PlannedRecord &b) {
                         return a.record.created < b.record.created;
                     });
    return side;
}

} // namespace

Expected<SandboxSeedReport> seedDemo(SandboxState &state)
{
    SandboxSeedReport report;
    Expected<QString> mark = state.meta(QStringLiteral("demo_seed"));
    if (!mark)
        return mark.error();
    if (*mark == seedMark) {
        report.alreadySeeded = true;
        return report;
    }
    Expected<DemoProviderSide> side = readDemo();
    if (!side)
        return side.error();

    if (Expected<void> begun = state.begin(); !begun)
        return begun.error();
    const auto fail = [&](const Error &error) -> Expected<SandboxSeedReport> {
        state.rollback();
        return makeError(QStringLiteral("seeding the demo data failed: %1").arg(error.message));
    };
    for (const auto &[account, opening] : side->accounts) {
        Expected<bool> inserted = state.insertAccount(account, opening.first, opening.second);
        if (!inserted)
            return fail(inserted.error());
        report.accounts += *inserted ? 1 : 0;
    }
    for (const SandboxPayment &payment : side->payments) {
        Expected<bool> inserted = state.insertPayment(payment);
        if (!inserted)
            return fail(inserted.error());
        report.payments += *inserted ? 1 : 0;
    }
    int unknownOrdinal = 0;
    for (PlannedRefund &planned : side->refunds) {
        // Deterministic: of the fixed tool's unknown refunds, in time order, the 1st, 3rd,
        // 5th... reached the provider and the others did not.
        if (planned.fixedToolUnknown && (++unknownOrdinal % 2) == 0) {
            report.notPerformed.append(planned.call);
            continue;
        }
        Expected<bool> inserted = state.insertRefund(planned.refund, planned.account);
        if (!inserted)
            return fail(inserted.error());
        report.refunds += *inserted ? 1 : 0;
    }
    QHash<QString, int> unknownOrdinals; // by kind: pickups and messages are counted apart
    for (const PlannedRecord &planned : std::as_const(side->records)) {
        const bool pickup = planned.record.kind == sandboxPickups().object;
        // As for refunds: of each tool's unknown calls, in time order, the 1st, 3rd, 5th...
        // reached their system and the others did not.
        if (planned.unknown && (++unknownOrdinals[planned.record.kind] % 2) == 0) {
            (pickup ? report.pickupsNotMade : report.messagesNotSent).append(planned.call);
            continue;
        }
        Expected<bool> inserted = state.insertRecord(planned.record);
        if (!inserted)
            return fail(inserted.error());
        (pickup ? report.pickups : report.messages) += *inserted ? 1 : 0;
    }
    if (Expected<void> marked = state.setMeta(QStringLiteral("demo_seed"), seedMark); !marked)
        return fail(marked.error());
    if (Expected<void> committed = state.commit(); !committed)
        return fail(committed.error());
    return report;
}

} // namespace verity
