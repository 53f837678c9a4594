// Whether the guard sends a write, by the earlier calls of its intent: a table of where those
// calls stand, and what the model is told.

#include "guard/repeatverdict.h"

#include <QTest>

using namespace verity;
using Kind = RepeatVerdict::Kind;

namespace {

IntentCall made(const char *id, std::optional<Outcome> outcome, std::optional<Resolution> resolution = {},
                bool inFlight = false, const char *record = "")
{
    IntentCall call;
    call.callExtId = QString::fromLatin1(id);
    call.ticketExtId = QStringLiteral("T-1");
    call.outcome = outcome;
    call.resolution = resolution;
    if (inFlight)
        call.inFlightUntil = 1'800'000'000'000;
    call.recordId = QString::fromLatin1(record);
    if (outcome == Outcome::Unknown || resolution)
        call.escalationId = 12;
    return call;
}

} // namespace

class RepeatVerdictTest : public QObject
{
    Q_OBJECT

private slots:
    void verdicts_data();
    void verdicts();
    void whatTheModelIsTold();
};

void RepeatVerdictTest::verdicts_data()
{
    QTest::addColumn<QList<IntentCall>>("earlier");
    QTest::addColumn<Kind>("kind");
    QTest::addColumn<QString>("decidedBy");
    QTest::addColumn<bool>("repeatsNotPerformed");

    const auto unknown = made("c3", Outcome::Unknown);
    QTest::newRow("first of its intent") << QList<IntentCall>{} << Kind::Send << QString() << false;
    QTest::newRow("in flight") << QList<IntentCall>{made("c3", Outcome::Unknown, {}, true)} << Kind::Hold
                               << "c3" << false;
    QTest::newRow("unknown") << QList<IntentCall>{unknown} << Kind::Hold << "c3" << false;
    QTest::newRow("no outcome at all")
            << QList<IntentCall>{made("c3", std::nullopt)} << Kind::Hold << "c3" << false;
    QTest::newRow("unknown, held repeats after it")
            << QList<IntentCall>{unknown, made("c4", Outcome::NotPerformed)} << Kind::Hold << "c3" << false;
    QTest::newRow("performed") << QList<IntentCall>{made("c3", Outcome::Performed, {}, false, "re_1")}
                               << Kind::AnswerPerformed << "c3" << false;
    QTest::newRow("already performed") << QList<IntentCall>{made("c3", Outcome::AlreadyPerformed)}
                                       << Kind::AnswerPerformed << "c3" << false;
    QTest::newRow("unknown, settled performed")
            << QList<IntentCall>{made("c3", Outcome::Unknown, Resolution::Performed)} << Kind::AnswerPerformed
            << "c3" << false;
    QTest::newRow("not performed, performed again from the console")
            << QList<IntentCall>{made("c3", Outcome::Unknown, Resolution::PerformedAgain)}
            << Kind::AnswerPerformed << "c3" << false;
    QTest::newRow("unknown, settled not performed")
            << QList<IntentCall>{made("c3", Outcome::Unknown, Resolution::NotPerformed)} << Kind::Send
            << QString() << true;
    QTest::newRow("refused by the tool")
            << QList<IntentCall>{made("c3", Outcome::NotPerformed)} << Kind::Send << QString() << true;
    QTest::newRow("settled not performed, then sent again and unknown")
            << QList<IntentCall>{made("c3", Outcome::Unknown, Resolution::NotPerformed),
                                 made("c5", Outcome::Unknown)}
            << Kind::Hold << "c5" << false;
    QTest::newRow("settled not performed, then sent again and performed")
            << QList<IntentCall>{made("c3", Outcome::Unknown, Resolution::NotPerformed),
                                 made("c5", Outcome::Performed, {}, false, "re_2")}
            << Kind::AnswerPerformed << "c5" << false;
    QTest::newRow("the performed call that names its record")
            << QList<IntentCall>{made("c3", Outcome::Performed),
                                 made("c4", Outcome::AlreadyPerformed, {}, false, "re_9")}
            << Kind::AnswerPerformed << "c4" << false;
    // A settlement outranks what the tool said, except that a tool's answer that the write took
    // effect (come after it was settled "not performed", or a lookup missed it) outranks "not
    // performed": sending it again would be a second effect. A person who knows better performs
    // it again from the console.
    QTest::newRow("performed, settled not performed")
            << QList<IntentCall>{made("c3", Outcome::Performed, Resolution::NotPerformed, false, "re_1")}
            << Kind::AnswerPerformed << "c3" << false;
    QTest::newRow("already performed, settled not performed")
            << QList<IntentCall>{made("c3", Outcome::AlreadyPerformed, Resolution::NotPerformed)}
            << Kind::AnswerPerformed << "c3" << false;
    QTest::newRow("refused by the tool, settled performed")
            << QList<IntentCall>{made("c3", Outcome::NotPerformed, Resolution::Performed)}
            << Kind::AnswerPerformed << "c3" << false;
}

void RepeatVerdictTest::verdicts()
{
    QFETCH(QList<IntentCall>, earlier);
    QFETCH(Kind, kind);
    QFETCH(QString, decidedBy);
    QFETCH(bool, repeatsNotPerformed);
    const RepeatVerdict verdict = judgeRepeat(earlier);
    QCOMPARE(verdict.kind, kind);
    QCOMPARE(verdict.earlier.callExtId, decidedBy);
    QCOMPARE(verdict.repeatsNotPerformed, repeatsNotPerformed);
    QCOMPARE(verdictReason(verdict).isEmpty(), kind == Kind::Send);
    QCOMPARE(verdictAnswer(verdict, QStringLiteral("issue_refund")).is_null(), kind == Kind::Send);
}

void RepeatVerdictTest::whatTheModelIsTold()
{
    const RepeatVerdict held = judgeRepeat({made("c3", Outcome::Unknown)});
    QCOMPARE(verdictReason(held),
             QStringLiteral("held: repeat of call c3 in ticket T-1, whose outcome is unknown "
                            "(escalation 12)"));
    const nlohmann::json answer = verdictAnswer(held, QStringLiteral("issue_refund"));
    QCOMPARE(answer["isError"].get<bool>(), true);
    const QString text = QString::fromStdString(answer["content"][0]["text"].get<std::string>());
    for (const char *words : {"NOT SENT.", "unknown outcome", "escalation 12", "Do not retry",
                              "Tell the customer that their request is being checked"})
        QVERIFY2(text.contains(QLatin1String(words)), qPrintable(text));

    const RepeatVerdict done = judgeRepeat({made("c3", Outcome::Performed, {}, false, "re_1")});
    const nlohmann::json performed = verdictAnswer(done, QStringLiteral("issue_refund"));
    QCOMPARE(performed["isError"].get<bool>(), false);
    const QString said = QString::fromStdString(performed["content"][0]["text"].get<std::string>());
    QVERIFY2(said.startsWith(QLatin1String("ALREADY DONE.")) && said.contains(QLatin1String("re_1")),
             qPrintable(said));

    IntentCall attested = made("c3", Outcome::Unknown, Resolution::Performed);
    attested.attested = true;
    attested.reference = QStringLiteral("seen in the dashboard");
    const QString quoted = QString::fromStdString(
            verdictAnswer(judgeRepeat({attested}), QStringLiteral("issue_refund"))["content"][0]["text"]
                    .get<std::string>());
    QVERIFY2(quoted.contains(QLatin1String("The person who checked it recorded: seen in the dashboard.")),
             qPrintable(quoted));
}

QTEST_GUILESS_MAIN(RepeatVerdictTest)
#include "tst_repeatverdict.moc"
