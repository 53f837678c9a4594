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

// A ticket with one message and one unknown refund, assessed: one open escalation.
Expected<qint64> ticketWithUnknownRefund(Store &store, const QString &extId)
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
    if (Expected<qint64> call = store.insertToolCall(unknownRefund(ticket->id, 2)); !call)
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
        Expected<qint64> stored = ticketWithUnknownRefund(*m_store, QStringLiteral("T-7"));
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
        Expected<qint64> stored = ticketWithUnknownRefund(*m_store, QStringLiteral("T-1"));
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
        Expected<qint64> stored = ticketWithUnknownRefund(*m_store, QStringLiteral("T-1"));
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

    void consolesClaimingNextAtOnceGetDifferentEscalations()
    {
        constexpr int escalationCount = 24;
        for (int i = 0; i < escalationCount; ++i) {
            Expected<qint64> stored = ticketWithUnknownRefund(*m_store, QStringLiteral("T-%1").arg(i));
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
        QVERIFY(ticketWithUnknownRefund(*m_store, QStringLiteral("T-1")));
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
        Expected<qint64> stored = ticketWithUnknownRefund(*m_store, QStringLiteral("T-1"));
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
