// What a ticket's calls add up to: counts, worst outcome, repeated intents and whether a
// person needs to look.

#include "domain/ticketassessment.h"

#include <QTest>

#include <algorithm>

using namespace verity;

Q_DECLARE_METATYPE(verity::CallFacts)

namespace {

const QString keyA = QStringLiteral("f099ab96043b870dc9784feec82d89b216d2b6c64710de680de0a8dfe5cd7ca2");
const QString keyB = QStringLiteral("0a8a2237b53dedcf35ea6d076246c788edf3e0811387e727e5d27a7b5c9af88b");

CallFacts readCall(qint64 id)
{
    CallFacts call;
    call.id = id;
    call.toolClass = ToolClass::Read;
    return call;
}

CallFacts writeCall(qint64 id, std::optional<Outcome> outcome, const QString &key,
                    ToolClass toolClass = ToolClass::WriteMoney)
{
    CallFacts call;
    call.id = id;
    call.toolClass = toolClass;
    call.outcome = outcome;
    call.intentKey = key;
    return call;
}

CallFacts unclassifiedCall(qint64 id)
{
    CallFacts call;
    call.id = id;
    call.toolClass = ToolClass::Unclassified;
    return call;
}

CallFacts keylessWrite(qint64 id, Outcome outcome)
{
    CallFacts call = writeCall(id, outcome, QString());
    call.intentError = true;
    return call;
}

QList<qint64> sorted(const QSet<qint64> &ids)
{
    QList<qint64> list(ids.cbegin(), ids.cend());
    std::sort(list.begin(), list.end());
    return list;
}

// 0 stands for "no write", as in outcomeSeverity().
int severityOf(const std::optional<Outcome> &outcome)
{
    return outcome ? outcomeSeverity(*outcome) : 0;
}

} // namespace

class TestTicketAssessment : public QObject
{
    Q_OBJECT

private slots:
    void assess_data()
    {
        QTest::addColumn<QList<CallFacts>>("calls");
        QTest::addColumn<int>("writeCount");
        QTest::addColumn<int>("worstSeverity"); // outcomeSeverity of the worst outcome, 0 for none
        QTest::addColumn<bool>("hasUnknown");
        QTest::addColumn<bool>("hasRepeatedIntent");
        QTest::addColumn<int>("duplicateEffects");
        QTest::addColumn<bool>("needsAttention");
        QTest::addColumn<QList<qint64>>("repeatedCalls");

        const int performed = outcomeSeverity(Outcome::Performed);
        const int already = outcomeSeverity(Outcome::AlreadyPerformed);
        const int notPerformed = outcomeSeverity(Outcome::NotPerformed);
        const int unknown = outcomeSeverity(Outcome::Unknown);

        QTest::newRow("no calls") << QList<CallFacts>{} << 0 << 0 << false << false << 0 << false
                                  << QList<qint64>{};
        QTest::newRow("reads only") << QList<CallFacts>{readCall(1), readCall(2), readCall(3)} << 0 << 0
                                    << false << false << 0 << false << QList<qint64>{};
        QTest::newRow("one performed write")
                << QList<CallFacts>{readCall(1), writeCall(2, Outcome::Performed, keyA)} << 1 << performed
                << false << false << 0 << false << QList<qint64>{};
        QTest::newRow("reads and unclassified are not writes")
                << QList<CallFacts>{readCall(1), unclassifiedCall(2), writeCall(3, Outcome::Performed, keyA),
                                    readCall(4)}
                << 1 << performed << false << false << 0 << true << QList<qint64>{};
        QTest::newRow("every write class counts")
                << QList<CallFacts>{writeCall(1, Outcome::Performed, keyA, ToolClass::WriteMoney),
                                    writeCall(2, Outcome::Performed, QStringLiteral("k2"),
                                              ToolClass::WriteCostly),
                                    writeCall(3, Outcome::Performed, QStringLiteral("k3"),
                                              ToolClass::WriteIrreversible),
                                    writeCall(4, Outcome::Performed, QStringLiteral("k4"),
                                              ToolClass::WriteWasteful)}
                << 4 << performed << false << false << 0 << false << QList<qint64>{};

        // Worst outcome: Unknown > NotPerformed > AlreadyPerformed > Performed, in any order.
        QTest::newRow("worst: already over performed")
                << QList<CallFacts>{writeCall(1, Outcome::AlreadyPerformed, QStringLiteral("k1")),
                                    writeCall(2, Outcome::Performed, QStringLiteral("k2"))}
                << 2 << already << false << false << 0 << false << QList<qint64>{};
        QTest::newRow("worst: not performed over already")
                << QList<CallFacts>{writeCall(1, Outcome::Performed, QStringLiteral("k1")),
                                    writeCall(2, Outcome::NotPerformed, QStringLiteral("k2")),
                                    writeCall(3, Outcome::AlreadyPerformed, QStringLiteral("k3"))}
                << 3 << notPerformed << false << false << 0 << false << QList<qint64>{};
        QTest::newRow("worst: unknown over everything, first")
                << QList<CallFacts>{writeCall(1, Outcome::Unknown, QStringLiteral("k1")),
                                    writeCall(2, Outcome::NotPerformed, QStringLiteral("k2")),
                                    writeCall(3, Outcome::AlreadyPerformed, QStringLiteral("k3")),
                                    writeCall(4, Outcome::Performed, QStringLiteral("k4"))}
                << 4 << unknown << true << false << 0 << true << QList<qint64>{};
        QTest::newRow("worst: unknown over everything, last")
                << QList<CallFacts>{writeCall(1, Outcome::Performed, QStringLiteral("k1")),
                                    writeCall(2, Outcome::AlreadyPerformed, QStringLiteral("k2")),
                                    writeCall(3, Outcome::NotPerformed, QStringLiteral("k3")),
                                    writeCall(4, Outcome::Unknown, QStringLiteral("k4"))}
                << 4 << unknown << true << false << 0 << true << QList<qint64>{};

        // Repeated intents.
        QTest::newRow("same key twice: both repeated")
                << QList<CallFacts>{writeCall(10, Outcome::NotPerformed, keyA),
                                    writeCall(11, Outcome::Performed, keyA)}
                << 2 << notPerformed << false << true << 0 << false << QList<qint64>{10, 11};
        QTest::newRow("SU-88421: unknown then performed, same key")
                << QList<CallFacts>{readCall(1), writeCall(2, Outcome::Unknown, keyA), readCall(3),
                                    writeCall(4, Outcome::Performed, keyA)}
                << 2 << unknown << true << true << 0 << true << QList<qint64>{2, 4};
        QTest::newRow("repeat came back already performed")
                << QList<CallFacts>{writeCall(2, Outcome::Performed, keyA),
                                    writeCall(4, Outcome::AlreadyPerformed, keyA)}
                << 2 << already << false << true << 0 << false << QList<qint64>{2, 4};
        QTest::newRow("two performed, same key")
                << QList<CallFacts>{writeCall(2, Outcome::Performed, keyA),
                                    writeCall(4, Outcome::Performed, keyA)}
                << 2 << performed << false << true << 1 << true << QList<qint64>{2, 4};
        QTest::newRow("three performed, same key")
                << QList<CallFacts>{writeCall(2, Outcome::Performed, keyA),
                                    writeCall(4, Outcome::Performed, keyA),
                                    writeCall(6, Outcome::Performed, keyA)}
                << 3 << performed << false << true << 2 << true << QList<qint64>{2, 4, 6};
        QTest::newRow("two keys, each performed twice")
                << QList<CallFacts>{writeCall(1, Outcome::Performed, keyA),
                                    writeCall(2, Outcome::Performed, keyB),
                                    writeCall(3, Outcome::Performed, keyA),
                                    writeCall(4, Outcome::Performed, keyB)}
                << 4 << performed << false << true << 2 << true << QList<qint64>{1, 2, 3, 4};
        QTest::newRow("different keys: no repeat")
                << QList<CallFacts>{writeCall(2, Outcome::Performed, keyA),
                                    writeCall(4, Outcome::Performed, keyB)}
                << 2 << performed << false << false << 0 << false << QList<qint64>{};
        QTest::newRow("only the sharing calls are repeated")
                << QList<CallFacts>{writeCall(1, Outcome::Performed, keyB),
                                    writeCall(2, Outcome::NotPerformed, keyA),
                                    writeCall(3, Outcome::Performed, keyA)}
                << 3 << notPerformed << false << true << 0 << false << QList<qint64>{2, 3};
        QTest::newRow("reads with the same key are not repeats")
                << QList<CallFacts>{writeCall(1, Outcome::Performed, keyA),
                                    writeCall(2, std::nullopt, keyA, ToolClass::Read)}
                << 1 << performed << false << false << 0 << false << QList<qint64>{};

        // A write settled not performed is still owed, unless its intent took effect.
        CallFacts proved = writeCall(2, Outcome::NotPerformed, keyA);
        proved.settledAbsent = true;
        QTest::newRow("proved absent: still owed")
                << QList<CallFacts>{readCall(1), proved} << 1 << notPerformed << false << false << 0 << true
                << QList<qint64>{};
        QTest::newRow("proved absent, its intent done by another call")
                << QList<CallFacts>{writeCall(1, Outcome::Performed, keyA), proved} << 2 << notPerformed
                << false << true << 0 << false << QList<qint64>{1, 2};
        QTest::newRow("refused by the system: nothing owed")
                << QList<CallFacts>{writeCall(2, Outcome::NotPerformed, keyA)} << 1 << notPerformed << false
                << false << 0 << false << QList<qint64>{};

        // What `verity guard` answered itself reached no system: it is no worst outcome.
        const auto answeredByGuard = [](CallFacts call) {
            noteResult(call,
                       QStringLiteral(R"({"answer":{"content":[]},"guard":"held: repeat of call 1",)"
                                      R"("outcome":"not_performed"})"));
            return call;
        };
        QTest::newRow("guard: a held repeat is not the worst outcome")
                << QList<CallFacts>{writeCall(1, Outcome::Performed, keyA),
                                    answeredByGuard(writeCall(2, Outcome::NotPerformed, keyA))}
                << 2 << performed << false << true << 0 << false << QList<qint64>{1, 2};
        QTest::newRow("guard: a tool's own not performed still is")
                << QList<CallFacts>{writeCall(1, Outcome::Performed, keyA),
                                    writeCall(2, Outcome::NotPerformed, QStringLiteral("k2"))}
                << 2 << notPerformed << false << false << 0 << false << QList<qint64>{};

        // Calls nobody can judge.
        QTest::newRow("unclassified call") << QList<CallFacts>{unclassifiedCall(1)} << 0 << 0 << false
                                           << false << 0 << true << QList<qint64>{};
        QTest::newRow("intent error") << QList<CallFacts>{keylessWrite(1, Outcome::Performed)} << 1
                                      << performed << false << false << 0 << true << QList<qint64>{};
        QTest::newRow("two keyless writes are not a repeat")
                << QList<CallFacts>{keylessWrite(1, Outcome::Performed), keylessWrite(2, Outcome::Performed)}
                << 2 << performed << false << false << 0 << true << QList<qint64>{};
    }

    void assess()
    {
        QFETCH(QList<CallFacts>, calls);
        QFETCH(int, writeCount);
        QFETCH(int, worstSeverity);
        QFETCH(bool, hasUnknown);
        QFETCH(bool, hasRepeatedIntent);
        QFETCH(int, duplicateEffects);
        QFETCH(bool, needsAttention);
        QFETCH(QList<qint64>, repeatedCalls);

        const TicketAssessment assessment = assessTicket(calls);
        QCOMPARE(assessment.writeCount, writeCount);
        QCOMPARE(severityOf(assessment.worstOutcome), worstSeverity);
        QCOMPARE(assessment.hasUnknown, hasUnknown);
        QCOMPARE(assessment.hasRepeatedIntent, hasRepeatedIntent);
        QCOMPARE(assessment.repeats.duplicateEffects, duplicateEffects);
        QCOMPARE(assessment.needsAttention, needsAttention);
        QCOMPARE(sorted(assessment.repeatedCalls), repeatedCalls);
    }

    // Each repeat of an intent, classified against what the earlier calls with its key did.
    void repeatKinds_data()
    {
        QTest::addColumn<QList<CallFacts>>("calls");
        QTest::addColumn<QStringList>("kinds"); // repeatKindId of each repeat, in call order
        QTest::addColumn<QList<qint64>>("repeatOf");
        QTest::addColumn<int>("duplicateCents");

        const auto refund = [](qint64 id, Outcome outcome) {
            CallFacts call = writeCall(id, outcome, keyA);
            call.amountCents = 11800;
            return call;
        };
        QTest::newRow("the March incident: unknown, then performed, is a retry")
                << QList<CallFacts>{refund(3, Outcome::Unknown), refund(4, Outcome::Performed)}
                << QStringList{QStringLiteral("retry")} << QList<qint64>{3} << 0;
        QTest::newRow("after the lookup found the first: a duplicate effect of $118.00")
                << QList<CallFacts>{refund(3, Outcome::Performed), refund(4, Outcome::Performed)}
                << QStringList{QStringLiteral("duplicate_effect")} << QList<qint64>{3} << 11800;
        QTest::newRow("retry after a refusal")
                << QList<CallFacts>{refund(1, Outcome::NotPerformed), refund(2, Outcome::Performed)}
                << QStringList{QStringLiteral("retry")} << QList<qint64>{1} << 0;
        QTest::newRow("already performed is harmless")
                << QList<CallFacts>{refund(1, Outcome::Performed), refund(2, Outcome::AlreadyPerformed)}
                << QStringList{QStringLiteral("harmless")} << QList<qint64>{1} << 0;
        QTest::newRow("already performed after an unknown is harmless")
                << QList<CallFacts>{refund(1, Outcome::Unknown), refund(2, Outcome::AlreadyPerformed)}
                << QStringList{QStringLiteral("harmless")} << QList<qint64>{1} << 0;
        // "Already performed" proves the effect exists: a later call that performs it again
        // is a second effect, not a retry.
        QTest::newRow("performed after already performed is a duplicate effect")
                << QList<CallFacts>{refund(1, Outcome::AlreadyPerformed), refund(2, Outcome::Performed)}
                << QStringList{QStringLiteral("duplicate_effect")} << QList<qint64>{1} << 11800;
        QTest::newRow("refused after the effect is harmless")
                << QList<CallFacts>{refund(1, Outcome::Performed), refund(2, Outcome::NotPerformed)}
                << QStringList{QStringLiteral("harmless")} << QList<qint64>{1} << 0;
        QTest::newRow("unknown after the effect is unsettled")
                << QList<CallFacts>{refund(1, Outcome::Performed), refund(2, Outcome::Unknown)}
                << QStringList{QStringLiteral("unsettled")} << QList<qint64>{1} << 0;
        QTest::newRow("an effect anywhere earlier counts, not only the latest call")
                << QList<CallFacts>{refund(1, Outcome::Performed), refund(2, Outcome::NotPerformed),
                                    refund(3, Outcome::Performed)}
                << QStringList{QStringLiteral("harmless"), QStringLiteral("duplicate_effect")}
                << QList<qint64>{1, 1} << 11800;
        QTest::newRow("three performed: two duplicates")
                << QList<CallFacts>{refund(1, Outcome::Performed), refund(2, Outcome::Performed),
                                    refund(3, Outcome::Performed)}
                << QStringList{QStringLiteral("duplicate_effect"), QStringLiteral("duplicate_effect")}
                << QList<qint64>{1, 2} << 23600;
        // A repeat names the call that took effect, not a refusal made in between.
        QTest::newRow("after effect, refusal, and retry: the effect is named")
                << QList<CallFacts>{refund(1, Outcome::Unknown), refund(2, Outcome::Performed),
                                    refund(3, Outcome::NotPerformed), refund(4, Outcome::Performed)}
                << QStringList{QStringLiteral("retry"), QStringLiteral("harmless"),
                               QStringLiteral("duplicate_effect")}
                << QList<qint64>{1, 2, 2} << 11800;
        // τ-bench airline: a reservation updated to what it already was answers with the very
        // same reservation; a new effect answers with something new.
        const auto answered = [](qint64 id, const QString &result) {
            CallFacts call = writeCall(id, Outcome::Performed, keyB, ToolClass::WriteCostly);
            noteResult(call, result);
            return call;
        };
        const QString reservation =
                QStringLiteral(R"({"reservation_id": "XEHM4B", "payment_history": [{"amount": 0}]})");
        QTest::newRow("the same answer as the effect is harmless")
                << QList<CallFacts>{answered(1, reservation), answered(2, reservation)}
                << QStringList{QStringLiteral("harmless")} << QList<qint64>{1} << 0;
        QTest::newRow("a different answer is a second effect")
                << QList<CallFacts>{answered(1, reservation),
                                    answered(2,
                                             QString(reservation)
                                                     .replace(QStringLiteral("0}"), QStringLiteral("50}")))}
                << QStringList{QStringLiteral("duplicate_effect")} << QList<qint64>{1} << 0;
        QTest::newRow("the same answer as an earlier refusal is still a retry")
                << QList<CallFacts>{[&] {
                                        CallFacts refused = answered(1, reservation);
                                        refused.outcome = Outcome::NotPerformed;
                                        return refused;
                                    }(),
                                    answered(2, reservation)}
                << QStringList{QStringLiteral("retry")} << QList<qint64>{1} << 0;
        QTest::newRow("the same plain words twice prove nothing: a duplicate")
                << QList<CallFacts>{answered(1, QStringLiteral("\"Refund issued\"")),
                                    answered(2, QStringLiteral("\"Refund issued\""))}
                << QStringList{QStringLiteral("duplicate_effect")} << QList<qint64>{1} << 0;
        QTest::newRow("the same record without an id proves nothing: a duplicate")
                << QList<CallFacts>{answered(1, QStringLiteral("{\"status\": \"ok\"}")),
                                    answered(2, QStringLiteral("{\"status\": \"ok\"}"))}
                << QStringList{QStringLiteral("duplicate_effect")} << QList<qint64>{1} << 0;
        const QString inString = QStringLiteral("\"{\\\"reservation_id\\\": \\\"FQ8APE\\\"}\"");
        QTest::newRow("a record inside a JSON string, answered again, is harmless")
                << QList<CallFacts>{answered(1, inString), answered(2, inString)}
                << QStringList{QStringLiteral("harmless")} << QList<qint64>{1} << 0;
        QTest::newRow("an answer that says nothing changed is harmless")
                << QList<CallFacts>{answered(1, reservation),
                                    answered(2, QStringLiteral("The reservation already has these flights."))}
                << QStringList{QStringLiteral("harmless")} << QList<qint64>{1} << 0;
        QTest::newRow("no changes were made is harmless")
                << QList<CallFacts>{answered(1, reservation),
                                    answered(2, QStringLiteral("No changes were made"))}
                << QStringList{QStringLiteral("harmless")} << QList<qint64>{1} << 0;
        // τ-bench airline, task 4 trial 3: the flights set again after a baggage change answer
        // with the reservation exactly as the baggage call left it: no new effect.
        const auto onKey = [&answered](qint64 id, const QString &key, const QString &result) {
            CallFacts call = answered(id, result);
            call.intentKey = key;
            return call;
        };
        const QString withBags = QString(reservation).replace(QStringLiteral("0}"), QStringLiteral("50}"));
        QTest::newRow("the state another write left is no new effect")
                << QList<CallFacts>{onKey(1, keyB, reservation), onKey(2, keyA, withBags),
                                    onKey(3, keyB, withBags)}
                << QStringList{QStringLiteral("harmless")} << QList<qint64>{1} << 0;
        QTest::newRow("another reservation's state is no cover")
                << QList<CallFacts>{onKey(1, keyB, reservation),
                                    onKey(2, keyA,
                                          QString(withBags).replace(QStringLiteral("XEHM4B"),
                                                                    QStringLiteral("QQ1234"))),
                                    onKey(3, keyB, withBags)}
                << QStringList{QStringLiteral("duplicate_effect")} << QList<qint64>{1} << 0;
        QTest::newRow("an irreversible duplicate moves no money")
                << QList<CallFacts>{writeCall(1, Outcome::Performed, keyB, ToolClass::WriteIrreversible),
                                    writeCall(2, Outcome::Performed, keyB, ToolClass::WriteIrreversible)}
                << QStringList{QStringLiteral("duplicate_effect")} << QList<qint64>{1} << 0;
        QTest::newRow("reads never repeat")
                << QList<CallFacts>{readCall(1), readCall(2)} << QStringList{} << QList<qint64>{} << 0;
    }

    void repeatKinds()
    {
        QFETCH(QList<CallFacts>, calls);
        QFETCH(QStringList, kinds);
        QFETCH(QList<qint64>, repeatOf);
        QFETCH(int, duplicateCents);

        const TicketAssessment assessment = assessTicket(calls);
        QStringList gotKinds;
        QList<qint64> gotRepeatOf;
        for (const CallFacts &call : calls) {
            auto link = assessment.repeatOf.find(call.id);
            if (link == assessment.repeatOf.end())
                continue;
            gotKinds.append(repeatKindId(link->kind));
            gotRepeatOf.append(link->repeatOf);
        }
        QCOMPARE(gotKinds, kinds);
        QCOMPARE(gotRepeatOf, repeatOf);
        QCOMPARE(assessment.repeats.duplicateCents, qint64(duplicateCents));
        QCOMPARE(assessment.repeats.retries + assessment.repeats.duplicateEffects
                         + assessment.repeats.harmless + assessment.repeats.unsettled,
                 int(kinds.size()));
        for (const QString &kind : kinds)
            QCOMPARE(repeatKindId(*repeatKindFromId(kind)), kind);
    }

    // The order of the calls never changes the summary verdict.
    void orderDoesNotMatter()
    {
        const QList<CallFacts> calls{readCall(1), writeCall(2, Outcome::Unknown, keyA),
                                     writeCall(3, Outcome::Performed, keyA),
                                     writeCall(4, Outcome::NotPerformed, keyB)};
        QList<CallFacts> reversed = calls;
        std::reverse(reversed.begin(), reversed.end());
        const TicketAssessment a = assessTicket(calls);
        const TicketAssessment b = assessTicket(reversed);
        QCOMPARE(a.writeCount, b.writeCount);
        QCOMPARE(a.worstOutcome, b.worstOutcome);
        QCOMPARE(a.hasUnknown, b.hasUnknown);
        QCOMPARE(a.hasRepeatedIntent, b.hasRepeatedIntent);
        QCOMPARE(a.repeats.duplicateEffects, b.repeats.duplicateEffects);
        QCOMPARE(a.needsAttention, b.needsAttention);
        QCOMPARE(a.repeatedCalls, b.repeatedCalls);
        QCOMPARE(a.worstOutcome, std::optional<Outcome>(Outcome::Unknown));
    }
};

QTEST_GUILESS_MAIN(TestTicketAssessment)
#include "tst_ticketassessment.moc"
