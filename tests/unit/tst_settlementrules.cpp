// What a settlement makes of a write, as tables: the outcome a ticket's assessment counts, when
// a write is proved absent and when it is still owed, what a refund adds to finance's sums, and
// how a provider's word for a record's status is read.

#include "domain/recordstatus.h"
#include "domain/settlement.h"
#include "domain/ticketassessment.h"

#include <QTest>

using namespace verity;

namespace {

using Reported = std::optional<Outcome>;
using Settled = std::optional<Resolution>;
using Basis = std::optional<SettlementBasis>;
using Effect = std::optional<PayoutEffect>;

} // namespace

Q_DECLARE_METATYPE(Reported)
Q_DECLARE_METATYPE(Settled)
Q_DECLARE_METATYPE(Basis)
Q_DECLARE_METATYPE(Effect)
Q_DECLARE_METATYPE(verity::ToolClass)
Q_DECLARE_METATYPE(verity::RecordStatus::State)

class TestSettlementRules : public QObject
{
    Q_OBJECT

private slots:
    void settledOutcomeOfAWrite_data()
    {
        QTest::addColumn<Reported>("reported");
        QTest::addColumn<Settled>("resolution");
        QTest::addColumn<Reported>("counted");
        QTest::newRow("unsettled unknown stays unknown")
                << Reported(Outcome::Unknown) << Settled() << Reported(Outcome::Unknown);
        QTest::newRow("unsettled, no result yet") << Reported() << Settled() << Reported();
        QTest::newRow("found performed") << Reported(Outcome::Unknown) << Settled(Resolution::Performed)
                                         << Reported(Outcome::Performed);
        QTest::newRow("performed again") << Reported(Outcome::Unknown) << Settled(Resolution::PerformedAgain)
                                         << Reported(Outcome::Performed);
        QTest::newRow("found absent") << Reported(Outcome::Unknown) << Settled(Resolution::NotPerformed)
                                      << Reported(Outcome::NotPerformed);
        QTest::newRow("late answer: performed outranks not performed")
                << Reported(Outcome::Performed) << Settled(Resolution::NotPerformed)
                << Reported(Outcome::Performed);
        QTest::newRow("late answer: already performed outranks not performed")
                << Reported(Outcome::AlreadyPerformed) << Settled(Resolution::NotPerformed)
                << Reported(Outcome::AlreadyPerformed);
    }

    void settledOutcomeOfAWrite()
    {
        QFETCH(Reported, reported);
        QFETCH(Settled, resolution);
        QFETCH(Reported, counted);
        QCOMPARE(settledOutcome(reported, resolution), counted);
    }

    void provedAbsent_data()
    {
        QTest::addColumn<Reported>("reported");
        QTest::addColumn<Settled>("resolution");
        QTest::addColumn<Basis>("basis");
        QTest::addColumn<bool>("absent");
        const Settled no(Resolution::NotPerformed);
        const Reported unknown(Outcome::Unknown);
        QTest::newRow("a lookup proves it") << unknown << no << Basis(SettlementBasis::Lookup) << true;
        QTest::newRow("a person's word does not")
                << unknown << no << Basis(SettlementBasis::Attestation) << false;
        QTest::newRow("not when the tool said it took effect")
                << Reported(Outcome::Performed) << no << Basis(SettlementBasis::Lookup) << false;
        QTest::newRow("not when found performed")
                << unknown << Settled(Resolution::Performed) << Basis(SettlementBasis::Lookup) << false;
        QTest::newRow("not when unsettled") << unknown << Settled() << Basis() << false;
    }

    void provedAbsent()
    {
        QFETCH(Reported, reported);
        QFETCH(Settled, resolution);
        QFETCH(Basis, basis);
        QFETCH(bool, absent);
        QCOMPARE(verity::provedAbsent(reported, resolution, basis), absent);
    }

    // Whichever way a write was found not performed, and whatever its class, the customer is
    // still owed it (unless another call of its intent took effect: the ticket's assessment).
    void settledAbsentIsOwedWhicheverWay_data()
    {
        QTest::addColumn<ToolClass>("toolClass");
        QTest::addColumn<Reported>("reported");
        QTest::addColumn<Settled>("resolution");
        QTest::addColumn<Basis>("basis");
        QTest::addColumn<bool>("owed");
        const Settled no(Resolution::NotPerformed);
        const Reported unknown(Outcome::Unknown);
        const Basis lookup(SettlementBasis::Lookup);
        const Basis check(SettlementBasis::Attestation);
        QTest::newRow("a message a lookup found absent")
                << ToolClass::WriteIrreversible << unknown << no << lookup << true;
        QTest::newRow("a message a person found absent")
                << ToolClass::WriteIrreversible << unknown << no << check << true;
        QTest::newRow("a pickup a person found absent")
                << ToolClass::WriteCostly << unknown << no << check << true;
        QTest::newRow("a refund a person found absent")
                << ToolClass::WriteMoney << unknown << no << check << true;
        QTest::newRow("a refund a lookup found absent")
                << ToolClass::WriteMoney << unknown << no << lookup << true;
        QTest::newRow("not when the tool said it took effect")
                << ToolClass::WriteIrreversible << Reported(Outcome::Performed) << no << check << false;
        QTest::newRow("not when already performed")
                << ToolClass::WriteMoney << Reported(Outcome::AlreadyPerformed) << no << lookup << false;
        QTest::newRow("not when found performed") << ToolClass::WriteIrreversible << unknown
                                                  << Settled(Resolution::Performed) << check << false;
        QTest::newRow("not when performed again") << ToolClass::WriteCostly << unknown
                                                  << Settled(Resolution::PerformedAgain) << lookup << false;
        QTest::newRow("not while unsettled")
                << ToolClass::WriteMoney << unknown << Settled() << Basis() << false;
    }

    void settledAbsentIsOwedWhicheverWay()
    {
        QFETCH(ToolClass, toolClass);
        QFETCH(Reported, reported);
        QFETCH(Settled, resolution);
        QFETCH(Basis, basis);
        QFETCH(bool, owed);
        QCOMPARE(settledAbsent(reported, resolution), owed);
        // What the ticket's assessment makes of it: a ticket with only this write needs a look
        // exactly when it is owed.
        CallFacts call;
        call.id = 1;
        call.toolClass = toolClass;
        call.outcome = settledOutcome(reported, resolution);
        call.intentKey = QStringLiteral("k");
        call.settledAbsent = settledAbsent(reported, resolution);
        const TicketAssessment assessment = assessTicket({call});
        QCOMPARE(assessment.owesWrite, owed);
        QCOMPARE(ticketState(assessment) == TicketState::NeedsLook, owed);
        // Proved absent only by a lookup: a person's check is asked about again before a repeat.
        QCOMPARE(verity::provedAbsent(reported, resolution, basis), owed && basis == SettlementBasis::Lookup);
    }

    void payoutStandingOfARefund_data()
    {
        QTest::addColumn<Outcome>("reported");
        QTest::addColumn<Settled>("resolution");
        QTest::addColumn<Basis>("basis");
        QTest::addColumn<Effect>("effect");
        QTest::addColumn<bool>("attestedAbsent");
        QTest::newRow("performed, unsettled")
                << Outcome::Performed << Settled() << Basis() << Effect(PayoutEffect::Performed) << false;
        QTest::newRow("unknown, unsettled")
                << Outcome::Unknown << Settled() << Basis() << Effect(PayoutEffect::Unknown) << false;
        QTest::newRow("unknown, found performed")
                << Outcome::Unknown << Settled(Resolution::Performed) << Basis(SettlementBasis::Lookup)
                << Effect(PayoutEffect::Performed) << false;
        QTest::newRow("unknown, performed again")
                << Outcome::Unknown << Settled(Resolution::PerformedAgain) << Basis(SettlementBasis::Lookup)
                << Effect(PayoutEffect::Performed) << false;
        QTest::newRow("unknown, looked up and absent: moved nothing")
                << Outcome::Unknown << Settled(Resolution::NotPerformed) << Basis(SettlementBasis::Lookup)
                << Effect() << false;
        QTest::newRow("performed, the provider's statement has none: moved nothing")
                << Outcome::Performed << Settled(Resolution::NotPerformed)
                << Basis(SettlementBasis::Reconciliation) << Effect() << false;
        QTest::newRow("a person's word: it may still have moved")
                << Outcome::Unknown << Settled(Resolution::NotPerformed)
                << Basis(SettlementBasis::Attestation) << Effect(PayoutEffect::Unknown) << true;
        QTest::newRow("a person's word against a performed result: it may have moved")
                << Outcome::Performed << Settled(Resolution::NotPerformed)
                << Basis(SettlementBasis::Attestation) << Effect(PayoutEffect::Unknown) << true;
    }

    void payoutStandingOfARefund()
    {
        QFETCH(Outcome, reported);
        QFETCH(Settled, resolution);
        QFETCH(Basis, basis);
        QFETCH(Effect, effect);
        QFETCH(bool, attestedAbsent);
        const PayoutStanding standing = payoutStanding(reported, resolution, basis);
        QCOMPARE(standing.effect, effect);
        QCOMPARE(standing.attestedAbsent, attestedAbsent);
    }

    void recordStatusIsReadOnce_data()
    {
        QTest::addColumn<QString>("word");
        QTest::addColumn<RecordStatus::State>("state");
        QTest::addColumn<bool>("didNotGoThrough");
        QTest::newRow("succeeded") << QStringLiteral("succeeded") << RecordStatus::State::Succeeded << false;
        QTest::newRow("pending") << QStringLiteral("pending") << RecordStatus::State::Pending << false;
        QTest::newRow("requires_action")
                << QStringLiteral("requires_action") << RecordStatus::State::Pending << false;
        QTest::newRow("failed") << QStringLiteral("failed") << RecordStatus::State::Failed << true;
        QTest::newRow("canceled (Stripe)")
                << QStringLiteral("canceled") << RecordStatus::State::Canceled << true;
        QTest::newRow("Cancelled (an export)")
                << QStringLiteral("Cancelled") << RecordStatus::State::Canceled << true;
        QTest::newRow("scheduled (a pickup)")
                << QStringLiteral("scheduled") << RecordStatus::State::Other << false;
        QTest::newRow("none given") << QString() << RecordStatus::State::Missing << false;
    }

    void recordStatusIsReadOnce()
    {
        QFETCH(QString, word);
        QFETCH(RecordStatus::State, state);
        QFETCH(bool, didNotGoThrough);
        const RecordStatus status(word);
        QCOMPARE(status.state(), state);
        QCOMPARE(status.didNotGoThrough(), didNotGoThrough);
        QCOMPARE(status.text(), word); // shown as the provider wrote it
    }
};

QTEST_GUILESS_MAIN(TestSettlementRules)
#include "tst_settlementrules.moc"
