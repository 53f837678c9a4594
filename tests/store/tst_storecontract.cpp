// The contract every backend keeps, written against the Store's rooms only (never a backend's
// class): each backend has its opener in initTestCase_data() and runs this suite unchanged.
// Each test function runs once per backend (Qt Test's global data): SQLite on a file in a
// temporary folder, PostgreSQL on a new database in a cluster this test starts and stops.

#include "domain/ticketassessment.h"
#include "store/reassessment.h"
#include "store/storefactory.h"
#include "support/postgrescluster.h"
#include "support/testmacros.h"

#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <functional>
#include <future>
#include <memory>
#include <thread>

using namespace verity;

namespace {

// A fresh store of `backend` for each test function.
Expected<std::unique_ptr<Store>> openFresh(const QString &backend, const QString &folder,
                                           test::PostgresCluster &cluster)
{
    if (backend == QLatin1String("sqlite"))
        return openStore(folder + QStringLiteral("/contract.sqlite"));
    static int databases = 0;
    const QString location = cluster.createDatabase(QStringLiteral("contract_%1").arg(++databases));
    if (location.isEmpty())
        return makeError(cluster.error());
    return openStore(location);
}

NewTicket newTicket(const QString &extId, qint64 openedAt = 1'700'000'000'000)
{
    NewTicket ticket;
    ticket.extId = extId;
    ticket.openedAt = openedAt;
    ticket.subject = QStringLiteral("Refund for %1").arg(extId);
    ticket.order.id = QStringLiteral("O-") + extId;
    ticket.order.customerName = QStringLiteral("Ada");
    ticket.seller = SellerRecord{QStringLiteral("acct_") + extId, QStringLiteral("Seller ") + extId, 10'000,
                                 openedAt};
    ticket.fingerprint = QStringLiteral("fp-") + extId;
    return ticket;
}

NewMessage message(qint64 ticketId, qint64 seq, const QString &text)
{
    return NewMessage{ticketId,
                      seq,
                      1'700'000'000'000 + seq,
                      MessageKind::Customer,
                      text,
                      QStringLiteral("m%1").arg(seq)};
}

// A refund whose answer never came: unknown, so the assessment opens an escalation for it.
NewToolCall unknownRefund(qint64 ticketId, qint64 seq)
{
    NewToolCall call;
    call.ticketId = ticketId;
    call.seq = seq;
    call.callExtId = QStringLiteral("call_%1").arg(seq);
    call.tool = QStringLiteral("issue_refund");
    call.toolClass = ToolClass::WriteMoney;
    call.argumentsJson = QStringLiteral("{\"amount_cents\":2500}");
    call.calledAt = 1'700'000'000'000 + seq;
    call.intentKey = QStringLiteral("key-%1").arg(seq);
    call.amountCents = 2500;
    call.outcome = Outcome::Unknown;
    call.outcomeReason = QStringLiteral("no answer");
    call.fingerprint = QStringLiteral("c%1").arg(seq);
    return call;
}

// A message to a seller whose answer never came: a write that moves no money.
NewToolCall unknownMessage(qint64 ticketId, qint64 seq)
{
    NewToolCall call = unknownRefund(ticketId, seq);
    call.tool = QStringLiteral("message_seller");
    call.toolClass = ToolClass::WriteIrreversible;
    call.argumentsJson = QStringLiteral("{\"text\":\"The buyer asks for a replacement\"}");
    call.amountCents.reset();
    return call;
}

// A ticket with one message and one unknown write (a refund unless said), assessed: one open
// escalation.
Expected<qint64> ticketWithUnknownWrite(Store &store, const QString &extId,
                                        NewToolCall (*unknownWrite)(qint64, qint64) = unknownRefund)
{
    if (Expected<void> begun = store.begin(); !begun)
        return begun.error();
    Expected<TicketRef> ticket = store.insertTicket(newTicket(extId));
    if (!ticket)
        return ticket.error();
    if (Expected<bool> stored =
                store.insertMessage(message(ticket->id, 1, QStringLiteral("Where is my refund?")));
        !stored)
        return stored.error();
    if (Expected<qint64> call = store.insertToolCall(unknownWrite(ticket->id, 2)); !call)
        return call.error();
    Expected<QList<CallFacts>> facts = store.callFacts(ticket->id);
    if (!facts)
        return facts.error();
    if (Expected<void> applied = store.applyFirstAssessment(ticket->id, 2, assessTicket(*facts)); !applied)
        return applied.error();
    if (Expected<void> committed = store.commit(); !committed)
        return committed.error();
    return ticket->id;
}

// A refund sent live, its result awaited until `until`: unknown, and not escalated while it waits.
NewToolCall refundInFlight(qint64 ticketId, qint64 seq, qint64 until)
{
    NewToolCall call = unknownRefund(ticketId, seq);
    call.outcomeReason = QStringLiteral("awaiting its result");
    call.inFlightUntil = until;
    return call;
}

// A ticket only a trace names so far (the receiver's, before the span naming its conversation
// came): no order, no seller, its subject the trace's.
NewTicket traceTicket(const QString &traceId, qint64 openedAt)
{
    NewTicket ticket;
    ticket.extId = QStringLiteral("trace:") + traceId;
    ticket.openedAt = openedAt;
    ticket.subject = QStringLiteral("Trace ") + traceId.left(8);
    ticket.fingerprint = QStringLiteral("fp-trace-") + traceId;
    return ticket;
}

// Assesses a ticket the open transaction wrote, from the calls it stored, as the importer does.
Expected<void> assessFirst(ImportWrites &store, qint64 ticketId, qint64 lastSeq)
{
    Expected<QList<CallFacts>> facts = store.callFacts(ticketId);
    if (!facts)
        return facts.error();
    return store.applyFirstAssessment(ticketId, lastSeq, assessTicket(*facts));
}

// The ticket's transcript as "seq text" for a message and "seq call-id" for a call.
QStringList transcriptLines(TicketReads &store, qint64 ticketId)
{
    Expected<QList<TranscriptEntry>> transcript = store.transcript(ticketId);
    if (!transcript)
        return {transcript.message()};
    QStringList lines;
    for (const TranscriptEntry &entry : std::as_const(*transcript))
        lines.append(QStringLiteral("%1 %2").arg(entry.seq).arg(entry.isToolCall ? entry.call.callExtId
                                                                                 : entry.text));
    return lines;
}

// The calls of a ticket's transcript, by their ids.
QHash<QString, ToolCallRow> callsById(TicketReads &store, qint64 ticketId)
{
    QHash<QString, ToolCallRow> calls;
    Expected<QList<TranscriptEntry>> transcript = store.transcript(ticketId);
    if (!transcript)
        return calls;
    for (const TranscriptEntry &entry : std::as_const(*transcript)) {
        if (entry.isToolCall)
            calls.insert(entry.call.callExtId, entry.call);
    }
    return calls;
}

} // namespace

class StoreContract : public QObject
{
    Q_OBJECT

    QTemporaryDir m_folder;
    test::PostgresCluster m_cluster;
    std::unique_ptr<Store> m_store;

private slots:
    void initTestCase_data()
    {
        QTest::addColumn<QString>("backend");
        QTest::newRow("sqlite") << QStringLiteral("sqlite");
        QTest::newRow("postgresql") << QStringLiteral("postgresql");
    }

    void initTestCase() { QVERIFY2(m_cluster.start(), qPrintable(m_cluster.error())); }

    void init()
    {
        QFETCH_GLOBAL(QString, backend);
        QVERIFY(m_folder.isValid());
        QDir(m_folder.path()).removeRecursively();
        QVERIFY(QDir().mkpath(m_folder.path()));
        Expected<std::unique_ptr<Store>> opened = openFresh(backend, m_folder.path(), m_cluster);
        QVERIFY2(opened, qPrintable(opened ? QString() : opened.message()));
        m_store = std::move(*opened);
    }

    void cleanup() { m_store.reset(); }

    void aRolledBackTransactionLeavesNothing()
    {
        ImportWrites &writes = *m_store;
        QVERIFY(writes.begin());
        QVERIFY(writes.insertTicket(newTicket(QStringLiteral("T-1"))));
        writes.rollback();
        Expected<std::optional<TicketRef>> found = writes.findTicket(QStringLiteral("T-1"));
        QVERIFY(found);
        QVERIFY(!found->has_value());
    }

    void aSavepointUndoesOnlyWhatFollowedIt()
    {
        ImportWrites &writes = *m_store;
        QVERIFY(writes.begin());
        Expected<TicketRef> ticket = writes.insertTicket(newTicket(QStringLiteral("T-1")));
        QVERIFY(ticket);
        QVERIFY(writes.savepoint());
        QVERIFY(writes.insertMessage(message(ticket->id, 1, QStringLiteral("kept?"))));
        QVERIFY(writes.rollbackToSavepoint()); // and the savepoint is gone
        QVERIFY(writes.commit());

        TicketReads &reads = *m_store;
        Expected<QList<TranscriptEntry>> transcript = reads.transcript(ticket->id);
        QVERIFY(transcript);
        QCOMPARE(transcript->size(), 0);
        Expected<std::optional<qint64>> id = reads.ticketIdByExtId(QStringLiteral("T-1"));
        QVERIFY(id && *id);
        QCOMPARE(**id, ticket->id);
    }

    void theSameMessageIsStoredOnce()
    {
        ImportWrites &writes = *m_store;
        QVERIFY(writes.begin());
        Expected<TicketRef> ticket = writes.insertTicket(newTicket(QStringLiteral("T-1")));
        QVERIFY(ticket);
        Expected<bool> first = writes.insertMessage(message(ticket->id, 1, QStringLiteral("hello")));
        Expected<bool> again = writes.insertMessage(message(ticket->id, 1, QStringLiteral("hello")));
        QVERIFY(first && again);
        QVERIFY(*first);
        QVERIFY(!*again);
        QVERIFY(writes.commit());
    }

    void ticketsReadBackAsWritten()
    {
        Expected<qint64> stored = ticketWithUnknownWrite(*m_store, QStringLiteral("T-7"));
        QVERIFY2(stored, qPrintable(stored ? QString() : stored.message()));
        const qint64 id = *stored;
        TicketReads &reads = *m_store;
        Expected<qint64> count = reads.countTickets(TicketQuery{});
        QVERIFY(count);
        QCOMPARE(*count, 1);
        Expected<QList<TicketRow>> page = reads.tickets(TicketQuery{}, 0, 10);
        QVERIFY(page);
        QCOMPARE(page->size(), 1);
        QCOMPARE(page->first().extId, QStringLiteral("T-7"));
        QCOMPARE(page->first().writeCount, 1);
        QVERIFY(page->first().hasUnknown);

        Expected<TicketDetail> detail = reads.existingTicket(id);
        QVERIFY(detail);
        QCOMPARE(detail->order.id, QStringLiteral("O-T-7"));
        QCOMPARE(detail->sellerId, QStringLiteral("acct_T-7"));
        QCOMPARE(detail->sellerBalanceCents, std::optional<qint64>(10'000));
        QVERIFY(!reads.existingTicket(id + 1000));

        Expected<QList<TranscriptEntry>> transcript = reads.transcript(id, 5);
        QVERIFY(transcript);
        QCOMPARE(transcript->size(), 2);
        QVERIFY(!transcript->at(0).isToolCall);
        QCOMPARE(transcript->at(0).text, QStringLiteral("Where"));
        QVERIFY(transcript->at(0).clippedBytes > 5);
        QVERIFY(transcript->at(1).isToolCall);
        QCOMPARE(transcript->at(1).call.outcome, std::optional<Outcome>(Outcome::Unknown));

        TextPlace place;
        place.part = TextPlace::Part::Message;
        place.seq = 1;
        Expected<QString> whole = reads.wholeText(id, place);
        QVERIFY(whole);
        QCOMPARE(*whole, QStringLiteral("Where is my refund?"));
    }

    void anUnknownWriteWaitsInTheQueueUntilSettled()
    {
        Expected<qint64> stored = ticketWithUnknownWrite(*m_store, QStringLiteral("T-1"));
        QVERIFY2(stored, qPrintable(stored ? QString() : stored.message()));
        const qint64 ticket = *stored;
        EscalationStore &escalations = *m_store;
        Expected<qint64> open = escalations.countOpenEscalations();
        QVERIFY(open);
        QCOMPARE(*open, 1);
        Expected<QList<EscalationRow>> rows = escalations.openEscalations(0, 10);
        QVERIFY(rows);
        QCOMPARE(rows->size(), 1);
        const qint64 escalationId = rows->first().id;
        QCOMPARE(rows->first().amountCents, std::optional<qint64>(2500));

        Expected<std::optional<EscalationDetail>> detail = escalations.escalation(escalationId);
        QVERIFY(detail && *detail);
        QCOMPARE((*detail)->intentKey, QStringLiteral("key-2"));
        Expected<QList<IntentCall>> calls = escalations.intentCalls(ticket, QStringLiteral("key-2"));
        QVERIFY(calls);
        QCOMPARE(calls->size(), 1);

        // The first claim wins; a second learns who made it.
        Settlement settlement{escalationId,           Resolution::Performed, SettlementBasis::Lookup,
                              QStringLiteral("re_1"), QStringLiteral("ana"), 1'700'000'100'000};
        QVERIFY(escalations.begin());
        Expected<ResolutionClaim> first = escalations.resolveEscalation(settlement);
        QVERIFY(first);
        QVERIFY(first->claimed);
        Expected<RepeatCounts> reassessed = reassessTicket(escalations, ticket);
        QVERIFY2(reassessed, qPrintable(reassessed ? QString() : reassessed.message()));
        QVERIFY(escalations.commit());

        settlement.operatorName = QStringLiteral("ben");
        settlement.resolution = Resolution::NotPerformed;
        QVERIFY(escalations.begin());
        Expected<ResolutionClaim> second = escalations.resolveEscalation(settlement);
        QVERIFY(second);
        QVERIFY(!second->claimed);
        QCOMPARE(second->resolvedBy, QStringLiteral("ana"));
        QCOMPARE(second->resolution, std::optional<Resolution>(Resolution::Performed));
        QVERIFY(escalations.commit());

        open = escalations.countOpenEscalations();
        QVERIFY(open);
        QCOMPARE(*open, 0);
    }

    void aClaimHoldsOthersOffUntilItLapses()
    {
        Expected<qint64> stored = ticketWithUnknownWrite(*m_store, QStringLiteral("T-1"));
        QVERIFY2(stored, qPrintable(stored ? QString() : stored.message()));
        EscalationStore &escalations = *m_store;
        const qint64 id = escalations.openEscalations(0, 1)->first().id;
        const qint64 now = 1'800'000'000'000;
        const qint64 lease = 15 * 60 * 1000;

        Expected<EscalationClaim> ana =
                escalations.claimEscalation(id, QStringLiteral("ana"), now, now + lease);
        QVERIFY(ana && ana->taken);
        QCOMPARE(ana->holder, QStringLiteral("ana"));
        Expected<EscalationClaim> ben =
                escalations.claimEscalation(id, QStringLiteral("ben"), now + 1, now + 1 + lease);
        QVERIFY(ben && !ben->taken);
        QCOMPARE(ben->holder, QStringLiteral("ana"));
        QCOMPARE(ben->until, now + lease);
        Expected<EscalationClaim> renewed =
                escalations.claimEscalation(id, QStringLiteral("ana"), now + 2, now + 2 + lease);
        QVERIFY(renewed && renewed->taken);
        QCOMPARE(renewed->until, now + 2 + lease);
        QCOMPARE(escalations.openEscalations(0, 1)->first().claimedBy, QStringLiteral("ana"));

        // Nobody else settles it while the claim holds, and the refusal says whose it is.
        QVERIFY(escalations.begin());
        Expected<ResolutionClaim> settled = escalations.resolveEscalation(
                Settlement{id, Resolution::Performed, SettlementBasis::Lookup, QStringLiteral("re_1"),
                           QStringLiteral("ben"), now + 3});
        escalations.rollback();
        QVERIFY(!settled);
        QVERIFY2(settled.message().contains(QLatin1String("claimed by ana")), qPrintable(settled.message()));

        // Ben cannot give back Ana's claim; a lapsed one is anybody's; an admin's release frees it.
        QCOMPARE(*escalations.releaseEscalationClaim(id, QStringLiteral("ben")), false);
        Expected<EscalationClaim> late =
                escalations.claimEscalation(id, QStringLiteral("ben"), now + 3 + lease, now + 3 + 2 * lease);
        QVERIFY(late && late->taken);
        QCOMPARE(late->holder, QStringLiteral("ben"));
        QCOMPARE(*escalations.releaseEscalationClaim(id, QString()), true);
        QVERIFY((*escalations.escalation(id))->claimedBy.isEmpty());
        QCOMPARE(*escalations.releaseEscalationClaim(id, QString()), false);

        // Settled by a lookup, there is nothing left to act on, so nothing to claim.
        QVERIFY(escalations.begin());
        QVERIFY(escalations.resolveEscalation(Settlement{id, Resolution::Performed, SettlementBasis::Lookup,
                                                         QStringLiteral("re_1"), QStringLiteral("ana"),
                                                         now + 4 + 2 * lease}));
        QVERIFY(escalations.commit());
        Expected<EscalationClaim> afterSettling = escalations.claimEscalation(
                id, QStringLiteral("ana"), now + 5 + 2 * lease, now + 5 + 3 * lease);
        QVERIFY(afterSettling && !afterSettling->taken);
        QVERIFY(afterSettling->holder.isEmpty());
    }

    // What a console tells a person of: escalations past the newest it saw, and claims of theirs.
    void newEscalationsAndOnesOwnClaimsAreRead()
    {
        for (const QString &ticket : {QStringLiteral("T-1"), QStringLiteral("T-2"), QStringLiteral("T-3")}) {
            Expected<qint64> stored = ticketWithUnknownWrite(*m_store, ticket);
            QVERIFY2(stored, qPrintable(stored ? QString() : stored.message()));
        }
        EscalationStore &escalations = *m_store;
        const QList<EscalationRow> all = *escalations.openEscalationsAfter(0, 10);
        QCOMPARE(all.size(), 3);
        QVERIFY(all.at(0).id > all.at(1).id && all.at(1).id > all.at(2).id); // newest first
        QCOMPARE(all.first().ticketExtId, QStringLiteral("T-3"));
        const QList<EscalationRow> past = *escalations.openEscalationsAfter(all.at(1).id, 10);
        QCOMPARE(past.size(), 1);
        QCOMPARE(past.first().id, all.first().id);
        QCOMPARE(escalations.openEscalationsAfter(0, 1)->size(), 1);

        const qint64 now = 1'800'000'000'000;
        QVERIFY(escalations.claimEscalation(all.at(0).id, QStringLiteral("ana"), now, now + 60'000)->taken);
        QVERIFY(escalations.claimEscalation(all.at(1).id, QStringLiteral("ana"), now, now + 30'000)->taken);
        QVERIFY(escalations.claimEscalation(all.at(2).id, QStringLiteral("ben"), now, now + 10'000)->taken);
        const QList<EscalationRow> anas = *escalations.claimsHeldBy(QStringLiteral("ana"), now + 1);
        QCOMPARE(anas.size(), 2);
        QCOMPARE(anas.first().id, all.at(1).id); // the soonest to lapse first
        QCOMPARE(anas.first().claimedUntil, now + 30'000);
        QCOMPARE(escalations.claimsHeldBy(QStringLiteral("ana"), now + 40'000)->size(), 1); // one lapsed
        QVERIFY(escalations.claimsHeldBy(QStringLiteral("cleo"), now)->isEmpty());
    }

    void consolesClaimingNextAtOnceGetDifferentEscalations()
    {
        constexpr int escalationCount = 24;
        for (int i = 0; i < escalationCount; ++i) {
            Expected<qint64> stored = ticketWithUnknownWrite(*m_store, QStringLiteral("T-%1").arg(i));
            QVERIFY2(stored, qPrintable(stored ? QString() : stored.message()));
        }
        // Four consoles, each with its own connection, pressing Next until nothing is left.
        const QString location = m_store->location();
        QList<QList<qint64>> claimed(4);
        QStringList errors(4);
        std::vector<std::thread> consoles;
        for (int console = 0; console < 4; ++console) {
            consoles.emplace_back([&, console] {
                Expected<std::unique_ptr<Store>> own = openStore(location);
                if (!own) {
                    errors[console] = own.message();
                    return;
                }
                const QString name = QStringLiteral("op-%1").arg(console);
                while (true) {
                    Expected<std::optional<EscalationClaim>> next =
                            (*own)->claimNextEscalation(name, 1'800'000'000'000, 1'800'000'900'000);
                    if (!next) {
                        errors[console] = next.message();
                        return;
                    }
                    if (!*next)
                        return;
                    claimed[console].append((*next)->escalationId);
                }
            });
        }
        for (std::thread &console : consoles)
            console.join();
        QCOMPARE(errors.join(QString()), QString());
        QSet<qint64> every;
        int total = 0;
        for (const QList<qint64> &ids : claimed) {
            total += int(ids.size());
            every.unite(QSet<qint64>(ids.begin(), ids.end()));
        }
        QCOMPARE(total, escalationCount); // none twice
        QCOMPARE(int(every.size()), escalationCount); // none skipped
    }

    void ticketsOpenedInTwoSessionsAreAllCounted()
    {
        // On a server's database one session opens a ticket while another's transaction, which
        // opened one too, is still open: neither waits for the other (the totals are no one row).
        QFETCH_GLOBAL(QString, backend);
        const bool server = backend == QLatin1String("postgresql"); // a file has one writer at a time
        ImportWrites &writes = *m_store;
        const QString location = m_store->location();
        if (server) {
            QVERIFY_OK(writes.begin());
            QVERIFY_OK(writes.insertTicket(newTicket(QStringLiteral("T-first"))));
            std::promise<QString> opened;
            std::future<QString> done = opened.get_future();
            std::thread other([&location, &opened] {
                Expected<std::unique_ptr<Store>> own = openStore(location);
                Expected<void> stored = own ? (*own)->begin() : Expected<void>(own.error());
                if (stored) {
                    Expected<TicketRef> ticket = (*own)->insertTicket(newTicket(QStringLiteral("T-second")));
                    stored = ticket ? (*own)->commit() : Expected<void>(ticket.error());
                }
                opened.set_value(stored ? QString() : stored.message());
            });
            const bool waited = done.wait_for(std::chrono::seconds(10)) != std::future_status::ready;
            QVERIFY_OK(writes.commit()); // what the other may be waiting for
            other.join();
            QVERIFY2(!waited, "the second session waited for the first one's transaction");
            QCOMPARE(done.get(), QString());
        }
        // Enough tickets for the changes to be folded together more than once, from both sessions.
        Expected<std::unique_ptr<Store>> second = openStore(location);
        QVERIFY_OK(second);
        for (int batch = 0; batch < 12; ++batch) {
            ImportWrites &session = batch % 2 == 0 ? writes : static_cast<ImportWrites &>(**second);
            QVERIFY_OK(session.begin());
            for (int i = 0; i < 50; ++i)
                QVERIFY_OK(session.insertTicket(newTicket(QStringLiteral("T-%1-%2").arg(batch).arg(i))));
            QVERIFY_OK(session.commit());
        }
        const qint64 opened = 600 + (server ? 2 : 0);
        QCOMPARE(*m_store->countTickets(TicketQuery{}), opened);
        QCOMPARE(*(*second)->countTickets(TicketQuery{}), opened);
    }

    void evidenceIsKeptOldestFirst()
    {
        QVERIFY(ticketWithUnknownWrite(*m_store, QStringLiteral("T-1")));
        EscalationStore &escalations = *m_store;
        Expected<QList<EscalationRow>> rows = escalations.openEscalations(0, 1);
        QVERIFY(rows && !rows->isEmpty());
        for (LookupVerdict verdict : {LookupVerdict::CouldNotTell, LookupVerdict::Found}) {
            Evidence evidence;
            evidence.escalationId = rows->first().id;
            evidence.operatorName = QStringLiteral("ana");
            evidence.verdict = verdict;
            evidence.request = QStringLiteral("GET /v1/refunds");
            evidence.evidenceSha256 = evidenceHash(evidence);
            QVERIFY(escalations.recordEvidence(evidence));
        }
        Expected<QList<Evidence>> kept = escalations.evidence(rows->first().id);
        QVERIFY(kept);
        QCOMPARE(kept->size(), 2);
        QCOMPARE(kept->at(0).verdict, LookupVerdict::CouldNotTell);
        QCOMPARE(kept->at(1).verdict, LookupVerdict::Found);
    }

    void aRefundIsInTheLedgerOnce()
    {
        LedgerStore &ledger = *m_store;
        LedgerEntry entry{QStringLiteral("key-1"), std::nullopt,
                          QStringLiteral("re_1"),  2500,
                          QStringLiteral("USD"),   QStringLiteral("acct_1"),
                          1'700'000'000'000,       QStringLiteral("console write")};
        Expected<bool> first = ledger.recordLedgerEntry(entry);
        Expected<bool> again = ledger.recordLedgerEntry(entry);
        QVERIFY(first && again);
        QVERIFY(*first);
        QVERIFY(!*again);
        Expected<std::optional<LedgerEntry>> found = ledger.ledgerEntry(QStringLiteral("key-1"));
        QVERIFY(found && *found);
        QCOMPARE((*found)->refundId, QStringLiteral("re_1"));
        QCOMPARE((*found)->amountCents, 2500);
    }

    void payoutMarksComeBackInOrder()
    {
        FinanceStore &finance = *m_store;
        QVERIFY(finance.begin());
        for (RecoveryState state : {RecoveryState::RecoveryRequested, RecoveryState::Recovered}) {
            PayoutMark mark;
            mark.duplicateKey = QStringLiteral("dup-1");
            mark.state = state;
            mark.operatorName = QStringLiteral("fin");
            mark.at = 1'700'000'000'000;
            QVERIFY(finance.insertPayoutMark(mark));
        }
        QVERIFY(finance.commit());
        Expected<QList<PayoutMark>> marks = finance.payoutMarks();
        QVERIFY(marks);
        QCOMPARE(marks->size(), 2);
        QCOMPARE(marks->last().state, RecoveryState::Recovered);
    }

    void aTrainerNoteIsReplacedAndRemoved()
    {
        Expected<qint64> stored = ticketWithUnknownWrite(*m_store, QStringLiteral("T-1"));
        QVERIFY2(stored, qPrintable(stored ? QString() : stored.message()));
        const qint64 ticket = *stored;
        TraceStore &traces = *m_store;
        TrainerNote note{QStringLiteral("call:call_2"), QStringLiteral("first"), QStringLiteral("tr"), 1};
        QVERIFY(traces.saveTrainerNote(ticket, note));
        note.text = QStringLiteral("second");
        QVERIFY(traces.saveTrainerNote(ticket, note));
        Expected<QList<TrainerNote>> notes = traces.trainerNotes(ticket);
        QVERIFY(notes);
        QCOMPARE(notes->size(), 1);
        QCOMPARE(notes->first().text, QStringLiteral("second"));
        note.text.clear();
        QVERIFY(traces.saveTrainerNote(ticket, note));
        notes = traces.trainerNotes(ticket);
        QVERIFY(notes);
        QVERIFY(notes->isEmpty());
    }

    void theAuditLogKeepsItsOrder()
    {
        AuditStore &audit = *m_store;
        Expected<std::optional<AuditEntry>> none = audit.lastAuditEntry();
        QVERIFY(none);
        QVERIFY(!none->has_value());
        QVERIFY(audit.begin());
        for (qint64 seq : {1, 2}) {
            AuditEntry entry;
            entry.seq = seq;
            entry.at = 1'700'000'000'000 + seq;
            entry.operatorName = QStringLiteral("ana");
            entry.action = QStringLiteral("lookup");
            entry.detail = QStringLiteral("entry %1").arg(seq);
            entry.prevHash = QString(64, QChar(u'0' + int(seq) - 1));
            entry.hash = QString(64, QChar(u'0' + int(seq)));
            QVERIFY(audit.insertAuditEntry(entry));
        }
        QVERIFY(audit.commit());
        Expected<qint64> count = audit.countAuditEntries();
        QVERIFY(count);
        QCOMPARE(*count, 2);
        Expected<std::optional<AuditEntry>> last = audit.lastAuditEntry();
        QVERIFY(last && *last);
        QCOMPARE((*last)->seq, 2);
        Expected<QList<AuditEntry>> entries = audit.auditEntries(0, 10);
        QVERIFY(entries);
        QCOMPARE(entries->size(), 2);
        QCOMPARE(entries->first().detail, QStringLiteral("entry 1"));
    }

    void fileInfoIsKeptByKey()
    {
        FileInfoStore &file = *m_store;
        QVERIFY(file.begin());
        QVERIFY(file.setFileInfo(QStringLiteral("kind"), QStringLiteral("incident-export")));
        QVERIFY(file.commit());
        Expected<QHash<QString, QString>> info = file.fileInfo();
        QVERIFY(info);
        QCOMPARE(info->value(QStringLiteral("kind")), QStringLiteral("incident-export"));
        QVERIFY(file.makeSelfContained());
    }

    void aTraceTicketTakesItsConversationsName()
    {
        // The receiver stored a trace's calls under the trace before the span naming its
        // conversation came.
        const QString traceId = QStringLiteral("7d1f0c2e9a4b4c6d8e0f1a2b3c4d5e6f");
        const QString trace = QStringLiteral("trace:") + traceId;
        ImportWrites &writes = *m_store;
        QVERIFY_OK(writes.begin());
        Expected<TicketRef> stored = writes.insertTicket(traceTicket(traceId, 1'700'000'060'000));
        QVERIFY_OK(stored);
        const qint64 id = stored->id;
        QVERIFY_OK(writes.insertMessage(message(id, 1, QStringLiteral("Where is my refund?"))));
        QVERIFY_OK(writes.insertToolCall(unknownRefund(id, 2)));
        QVERIFY_OK(assessFirst(writes, id, 2));
        QVERIFY_OK(writes.commit());

        // Named: the conversation's id, fingerprint and subject, opened at the earlier of the two.
        NewTicket named = newTicket(QStringLiteral("conv-1"), 1'700'000'000'000);
        named.subject = QStringLiteral("My lamp arrived broken");
        QVERIFY_OK(writes.begin());
        QVERIFY_OK(writes.renameTicket(id, named));
        QVERIFY_OK(writes.commit());

        TicketReads &reads = *m_store;
        Expected<std::optional<qint64>> byName = reads.ticketIdByExtId(QStringLiteral("conv-1"));
        QVERIFY_OK(byName);
        QCOMPARE(*byName, std::optional<qint64>(id));
        Expected<std::optional<qint64>> byTrace = reads.ticketIdByExtId(trace);
        QVERIFY_OK(byTrace);
        QVERIFY(!byTrace->has_value());
        Expected<std::optional<TicketRef>> found = writes.readTicket(QStringLiteral("conv-1"));
        QVERIFY_OK(found);
        QVERIFY(found->has_value());
        QCOMPARE((*found)->id, id);
        QCOMPARE((*found)->fingerprint, named.fingerprint);
        Expected<TicketDetail> detail = reads.existingTicket(id);
        QVERIFY_OK(detail);
        QCOMPARE(detail->row.extId, QStringLiteral("conv-1"));
        QCOMPARE(detail->row.subject, named.subject);
        QCOMPARE(detail->row.openedAt, named.openedAt);
        QCOMPARE(*reads.countTickets(TicketQuery{}), 1);

        // Its rows kept, its escalation with them, under the new name.
        QCOMPARE(transcriptLines(reads, id),
                 QStringList({QStringLiteral("1 Where is my refund?"), QStringLiteral("2 call_2")}));
        EscalationStore &escalations = *m_store;
        Expected<QList<EscalationRow>> open = escalations.openEscalations(0, 10);
        QVERIFY_OK(open);
        QCOMPARE(open->size(), 1);
        QCOMPARE(open->first().ticketId, id);
        QCOMPARE(open->first().ticketExtId, QStringLiteral("conv-1"));
        QCOMPARE(open->first().callExtId, QStringLiteral("call_2"));

        // A name without a subject, opened later, leaves the ticket's own.
        NewTicket bare;
        bare.extId = QStringLiteral("conv-2");
        bare.openedAt = 1'800'000'000'000;
        bare.fingerprint = QStringLiteral("fp-conv-2");
        QVERIFY_OK(writes.begin());
        QVERIFY_OK(writes.renameTicket(id, bare));
        QVERIFY_OK(writes.commit());
        detail = reads.existingTicket(id);
        QVERIFY_OK(detail);
        QCOMPARE(detail->row.extId, QStringLiteral("conv-2"));
        QCOMPARE(detail->row.subject, named.subject);
        QCOMPARE(detail->row.openedAt, named.openedAt);
    }

    void aTraceTicketJoinsItsConversationsTicket()
    {
        // The conversation's ticket: a message and an unknown refund (call_2), escalated.
        Expected<qint64> conversation = ticketWithUnknownWrite(*m_store, QStringLiteral("conv-1"));
        QVERIFY_OK(conversation);
        const qint64 into = *conversation;

        // The customer's next turn came as a trace of its own, its calls numbered afresh (call_2
        // again), with the HTTP record of that call and a trainer's note on another.
        const QString traceId = QStringLiteral("5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e");
        const qint64 turnAt = 1'700'000'600'000; // ten minutes after the conversation opened
        ImportWrites &writes = *m_store;
        QVERIFY_OK(writes.begin());
        Expected<TicketRef> traced = writes.insertTicket(traceTicket(traceId, turnAt));
        QVERIFY_OK(traced);
        const qint64 from = traced->id;
        NewMessage again = message(from, 1, QStringLiteral("Still nothing?"));
        again.at = turnAt + 1;
        again.fingerprint = QStringLiteral("m-trace-1");
        QVERIFY_OK(writes.insertMessage(again));
        NewToolCall retry = unknownRefund(from, 2);
        retry.intentKey = QStringLiteral("key-trace-2");
        retry.fingerprint = QStringLiteral("c-trace-2");
        retry.calledAt = turnAt + 2;
        QVERIFY_OK(writes.insertToolCall(retry));
        NewTraceEvent sent;
        sent.ticketId = from;
        sent.event.seq = 3;
        sent.event.at = turnAt + 3;
        sent.event.kind = TraceKind::Http;
        sent.event.callExtId = QStringLiteral("call_2");
        sent.event.http.method = QStringLiteral("POST");
        sent.event.http.url = QStringLiteral("/v1/refunds");
        sent.event.http.idempotencyKey = QStringLiteral("key-trace-2");
        sent.event.http.error = QStringLiteral("timeout");
        sent.fingerprint = QStringLiteral("tr-3");
        QVERIFY_OK(writes.insertTraceEvent(sent));
        NewToolCall other = unknownRefund(from, 4); // call_4
        other.calledAt = turnAt + 4;
        QVERIFY_OK(writes.insertToolCall(other));
        QVERIFY_OK(assessFirst(writes, from, 4));
        QVERIFY_OK(writes.commit());
        TraceStore &traces = *m_store;
        const TrainerNote note{QStringLiteral("call_4.call"), QStringLiteral("sent twice?"),
                               QStringLiteral("tr"), 1'700'000'700'000};
        QVERIFY_OK(traces.saveTrainerNote(from, note));
        EscalationStore &escalations = *m_store;
        QCOMPARE(*escalations.countOpenEscalations(), 3);
        Expected<QList<EscalationRow>> before = escalations.openEscalations(0, 10);
        QVERIFY_OK(before);
        QHash<qint64, qint64> ticketOf; // escalation id to its ticket, before the join
        for (const EscalationRow &row : std::as_const(*before))
            ticketOf.insert(row.id, row.ticketId);

        // Joined, and the conversation's ticket assessed again, as the importer does.
        QVERIFY_OK(writes.begin());
        QVERIFY_OK(writes.mergeTicket(from, into));
        QVERIFY_OK(reassessTicket(writes, into));
        QVERIFY_OK(writes.commit());

        // The trace's ticket is gone; its rows follow the conversation's own, in their order,
        // the call id both used kept apart.
        TicketReads &reads = *m_store;
        Expected<std::optional<TicketDetail>> gone = reads.ticket(from);
        QVERIFY_OK(gone);
        QVERIFY(!gone->has_value());
        QCOMPARE(*reads.ticketIdByExtId(QStringLiteral("trace:") + traceId), std::optional<qint64>());
        QCOMPARE(*reads.countTickets(TicketQuery{}), 1);
        const QStringList lines = transcriptLines(reads, into);
        QCOMPARE(lines.size(), 5);
        QCOMPARE(lines.mid(0, 3),
                 QStringList({QStringLiteral("1 Where is my refund?"), QStringLiteral("2 call_2"),
                              QStringLiteral("3 Still nothing?")}));
        QVERIFY2(lines.at(3).startsWith(QLatin1String("4 call_2#")), qPrintable(lines.at(3)));
        QCOMPARE(lines.at(4), QStringLiteral("6 call_4"));
        const QString joinedCall = lines.at(3).mid(2);
        AssessmentStore &assessments = *m_store;
        QCOMPARE(*assessments.lastSeq(into), 6);

        // Its call records follow their call; its trainer's note, and its escalations, the ticket.
        Expected<QList<TraceEvent>> events = traces.traceEvents(into);
        QVERIFY_OK(events);
        QCOMPARE(events->size(), 1);
        QCOMPARE(events->first().seq, 5);
        QCOMPARE(events->first().callExtId, joinedCall);
        QCOMPARE(events->first().http.error, QStringLiteral("timeout"));
        Expected<QList<TrainerNote>> notes = traces.trainerNotes(into);
        QVERIFY_OK(notes);
        QCOMPARE(*notes, QList<TrainerNote>({note}));
        Expected<QList<EscalationRow>> after = escalations.openEscalations(0, 10);
        QVERIFY_OK(after);
        QCOMPARE(after->size(), 3);
        QSet<QString> escalatedCalls;
        for (const EscalationRow &row : std::as_const(*after)) {
            QVERIFY(ticketOf.contains(row.id)); // each kept its id
            QCOMPARE(row.ticketId, into);
            QCOMPARE(row.ticketExtId, QStringLiteral("conv-1"));
            escalatedCalls.insert(row.callExtId);
        }
        QCOMPARE(escalatedCalls,
                 QSet<QString>({QStringLiteral("call_2"), joinedCall, QStringLiteral("call_4")}));
        Expected<TicketDetail> detail = reads.existingTicket(into);
        QVERIFY_OK(detail);
        QCOMPARE(detail->row.writeCount, 3);
        QVERIFY(detail->row.hasUnknown);
        QCOMPARE(detail->row.openedAt, 1'700'000'000'000); // the conversation's, the earlier

        // The joined ticket's id is never another's (a console may still hold it), and a ticket
        // that is not there, or the same one twice, joins nothing.
        QVERIFY_OK(writes.begin());
        Expected<TicketRef> next = writes.insertTicket(newTicket(QStringLiteral("conv-2")));
        QVERIFY_OK(next);
        QVERIFY2(next->id > from, qPrintable(QStringLiteral("%1 after %2").arg(next->id).arg(from)));
        QVERIFY_OK(writes.commit());
        QVERIFY_OK(writes.begin());
        QVERIFY(!writes.mergeTicket(from, into));
        QVERIFY(!writes.mergeTicket(into, into));
        writes.rollback();
        QCOMPARE(transcriptLines(reads, into), lines);
    }

    void aWriteWhoseResultDoesNotComeIsEscalatedOnceItsWaitEnds()
    {
        // Three refunds sent live: the first's result never comes, the second's does, the third
        // may still come for a while.
        const qint64 sentAt = 1'800'000'000'000;
        const qint64 grace = 30'000;
        ImportWrites &writes = *m_store;
        QVERIFY_OK(writes.begin());
        Expected<TicketRef> ticket = writes.insertTicket(newTicket(QStringLiteral("conv-live")));
        QVERIFY_OK(ticket);
        const qint64 id = ticket->id;
        QVERIFY_OK(writes.insertMessage(message(id, 1, QStringLiteral("Refund three items, please"))));
        Expected<qint64> lost = writes.insertToolCall(refundInFlight(id, 2, sentAt + grace));
        Expected<qint64> answered = writes.insertToolCall(refundInFlight(id, 3, sentAt + grace));
        Expected<qint64> slow = writes.insertToolCall(refundInFlight(id, 4, sentAt + 10 * 60'000));
        QVERIFY_OK(lost);
        QVERIFY_OK(answered);
        QVERIFY_OK(slow);
        ToolResultUpdate result;
        result.callId = *answered;
        result.rawResult = QStringLiteral("{\"id\":\"re_3\",\"status\":\"succeeded\"}");
        result.at = sentAt + 900;
        result.outcome = Outcome::Performed;
        result.outcomeReason = QStringLiteral("status succeeded");
        result.fingerprint = QStringLiteral("r3");
        QVERIFY_OK(writes.setToolResult(result));
        QVERIFY_OK(assessFirst(writes, id, 4));
        QVERIFY_OK(writes.commit());

        // While they wait, nothing is escalated.
        EscalationStore &escalations = *m_store;
        TicketReads &reads = *m_store;
        QCOMPARE(*escalations.countOpenEscalations(), 0);
        QVERIFY(reads.existingTicket(id)->row.unknownInFlight);
        Expected<int> early = writes.escalateOverdueCallsAlone(sentAt + grace - 1);
        QVERIFY_OK(early);
        QCOMPARE(*early, 0);
        QCOMPARE(*escalations.countOpenEscalations(), 0);

        // Its wait over, the lost one stays unknown and is escalated; the others are not.
        Expected<int> due = writes.escalateOverdueCallsAlone(sentAt + grace);
        QVERIFY_OK(due);
        QCOMPARE(*due, 1);
        Expected<QList<EscalationRow>> open = escalations.openEscalations(0, 10);
        QVERIFY_OK(open);
        QCOMPARE(open->size(), 1);
        QCOMPARE(open->first().callExtId, QStringLiteral("call_2"));
        QCOMPARE(open->first().ticketId, id);
        QHash<QString, ToolCallRow> calls = callsById(reads, id);
        QCOMPARE(calls.size(), 3);
        QCOMPARE(calls.value(QStringLiteral("call_2")).outcome, std::optional<Outcome>(Outcome::Unknown));
        QCOMPARE(calls.value(QStringLiteral("call_2")).inFlightUntil, std::optional<qint64>());
        QCOMPARE(calls.value(QStringLiteral("call_2")).escalationId, std::optional<qint64>(open->first().id));
        QCOMPARE(calls.value(QStringLiteral("call_3")).outcome, std::optional<Outcome>(Outcome::Performed));
        QVERIFY(!calls.value(QStringLiteral("call_3")).escalationId);
        QCOMPARE(calls.value(QStringLiteral("call_4")).inFlightUntil,
                 std::optional<qint64>(sentAt + 10 * 60'000));
        QVERIFY(!calls.value(QStringLiteral("call_4")).escalationId);
        Expected<TicketDetail> detail = reads.existingTicket(id);
        QVERIFY_OK(detail);
        QVERIFY(detail->row.hasUnknown);
        QVERIFY(!detail->row.unknownInFlight);
        Expected<int> again = writes.escalateOverdueCallsAlone(sentAt + 2 * grace);
        QVERIFY_OK(again);
        QCOMPARE(*again, 0);

        // A wait ended early (its caller gave up) is escalated with the next round; a call that
        // was not waiting has no wait to end.
        Expected<bool> ended = writes.endWaitForResult(*slow, sentAt + 2 * grace + 1);
        QVERIFY_OK(ended);
        QVERIFY(*ended);
        QCOMPARE(*writes.endWaitForResult(*answered, sentAt + 2 * grace + 1), false);
        QCOMPARE(*writes.endWaitForResult(*lost, sentAt + 2 * grace + 1), false);
        QVERIFY_OK(writes.begin());
        Expected<int> gaveUp = writes.escalateOverdueCalls(sentAt + 2 * grace + 1);
        QVERIFY_OK(gaveUp);
        QVERIFY_OK(writes.commit());
        QCOMPARE(*gaveUp, 1);
        QCOMPARE(*escalations.countOpenEscalations(), 2);
        calls = callsById(reads, id);
        QVERIFY(calls.value(QStringLiteral("call_4")).escalationId);
        QCOMPARE(calls.value(QStringLiteral("call_4")).inFlightUntil, std::optional<qint64>());
    }

    // A message a person's check found not performed is still owed: its ticket needs a look. A
    // later check that it was since performed replaces that check only when it says so, and a
    // check never turns "performed" back into "not performed".
    void aWriteACheckFoundAbsentStaysOwedUntilPerformed()
    {
        Expected<qint64> stored = ticketWithUnknownWrite(*m_store, QStringLiteral("T-1"), unknownMessage);
        QVERIFY_OK(stored);
        const qint64 ticket = *stored;
        EscalationStore &escalations = *m_store;
        const qint64 id = escalations.openEscalations(0, 1)->first().id;
        const auto settle = [&](const Settlement &settlement) -> Expected<ResolutionClaim> {
            if (Expected<void> begun = escalations.begin(); !begun)
                return begun.error();
            Expected<ResolutionClaim> claim = escalations.resolveEscalation(settlement);
            if (claim)
                if (Expected<RepeatCounts> reassessed = reassessTicket(escalations, ticket); !reassessed)
                    claim = reassessed.error();
            if (!claim) {
                escalations.rollback();
                return claim;
            }
            if (Expected<void> committed = escalations.commit(); !committed)
                return committed.error();
            return claim;
        };
        const auto row = [&] { return (**m_store->ticket(ticket)).row; };
        const qint64 at = 1'700'000'100'000;
        const QString ana = QStringLiteral("ana");
        const QString ben = QStringLiteral("ben");

        Expected<ResolutionClaim> absent =
                settle(Settlement{id, Resolution::NotPerformed, SettlementBasis::Attestation, {}, ana, at});
        QVERIFY_OK(absent);
        QVERIFY(absent->claimed);
        QVERIFY(row().needsAttention);
        QCOMPARE(ticketStateLabel(row().state), ticketStateLabel(TicketState::NeedsLook));

        // A second check that does not say what it replaces leaves the first as it stands, and
        // a replacing check says it was performed or nothing.
        Expected<ResolutionClaim> unsaid = settle(Settlement{
                id, Resolution::Performed, SettlementBasis::Attestation, QStringLiteral("m1"), ben, at + 1});
        QVERIFY_OK(unsaid);
        QVERIFY(!unsaid->claimed);
        QCOMPARE(unsaid->resolvedBy, ana);
        Expected<ResolutionClaim> stillAbsent = settle(Settlement{
                id, Resolution::NotPerformed, SettlementBasis::Attestation, {}, ben, at + 2, true});
        QVERIFY_OK(stillAbsent);
        QVERIFY(!stillAbsent->claimed);
        QVERIFY(row().needsAttention);

        Expected<ResolutionClaim> done =
                settle(Settlement{id, Resolution::Performed, SettlementBasis::Attestation,
                                  QStringLiteral("m1"), ben, at + 3, true});
        QVERIFY_OK(done);
        QVERIFY(done->claimed);
        const EscalationDetail now = **escalations.escalation(id);
        QCOMPARE(now.resolvedBy, ben);
        QCOMPARE(settlementText(*now.resolution, now.basis), QStringLiteral("performed (attested)"));
        QVERIFY(!row().needsAttention);
        QCOMPARE(ticketStateLabel(row().state), ticketStateLabel(TicketState::Performed));

        Expected<ResolutionClaim> back = settle(Settlement{
                id, Resolution::NotPerformed, SettlementBasis::Attestation, {}, ana, at + 4, true});
        QVERIFY_OK(back);
        QVERIFY(!back->claimed);
        QCOMPARE((**escalations.escalation(id)).resolvedBy, ben);
    }

    void aNewStoreHasNothingToReassess()
    {
        AssessmentStore &assessments = *m_store;
        Expected<QList<qint64>> waiting = assessments.ticketsAwaitingReassessment(10);
        QVERIFY(waiting);
        QVERIFY(waiting->isEmpty());
        QVERIFY(reassessAwaitingTickets(assessments));
    }
};

QTEST_GUILESS_MAIN(StoreContract)
#include "tst_storecontract.moc"
