// Lookups that cannot be misled: the API key goes to the base URL's origin and nowhere else.
// The rule for a provider URL, as a table; a redirect to another origin refused in words by
// the lookup, the refund POST and the statement (and nothing sent there), one within the
// origin followed and recorded as the URL that answered; a base URL outside the rule asks
// nothing; the saved settings keep to the rule too. Every server is on 127.0.0.1.

#include "provider/providerclient.h"
#include "provider/providerhttp.h"
#include "provider/providerurl.h"
#include "provider/statementfetch.h"
#include "resolution/providerconnection.h"
#include "store/storefactory.h"
#include "support/inprocesssandbox.h"
#include "support/loopbackprovider.h"
#include "support/provider.h"
#include "support/testmacros.h"
#include "support/time.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QSettings>

using namespace verity;
using namespace verity::test;

namespace {

const QString expectation = QStringLiteral("expected https://…, or http:// to 127.0.0.1, ::1 or localhost");

QByteArray refundJson(const QString &id, const QString &intentKey)
{
    return QStringLiteral(R"({"id": "%1", "object": "refund", "payment_intent": "pi_order1", "amount": 1200,
                             "currency": "usd", "status": "succeeded", "created": 1773757927,
                             "metadata": {"intent_key": "%2"}})")
            .arg(id, intentKey)
            .toUtf8();
}

QByteArray listOf(const QByteArray &items)
{
    return R"({"object": "list", "has_more": false, "data": [)" + items + "]}";
}

// What a misled lookup would read: the other server's empty list settles "not performed".
LoopbackProvider::Route emptyList()
{
    return LoopbackProvider::script({{200, listOf({})}});
}

LoopbackProvider::Route redirectTo(const QByteArray &location, int status = 302)
{
    return LoopbackProvider::script({{status, {}, location}});
}

QString portOf(const LoopbackProvider &server)
{
    return QString::number(server.url().port());
}

// `target` with "%1" the other server's port and "%2" the provider's own (either may be absent).
QString fill(const QString &target, const LoopbackProvider &other, const LoopbackProvider &provider)
{
    return QString(target)
            .replace(QStringLiteral("%1"), portOf(other))
            .replace(QStringLiteral("%2"), portOf(provider));
}

} // namespace

class TestProviderOrigin : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();

    void providerUrlRule_data();
    void providerUrlRule();
    void sameOrigin_data();
    void sameOrigin();

    void lookupRefusesARedirectToAnotherOrigin_data();
    void lookupRefusesARedirectToAnotherOrigin();
    void lookupFollowsARedirectWithinTheOrigin();
    void lookupStopsAtARedirectLoop();
    void refundPostIsNeverRedirected_data();
    void refundPostIsNeverRedirected();
    void statementRefusesARedirectToAnotherOrigin();
    void evidenceNamesTheUrlThatAnswered();
    void baseUrlOutsideTheRuleAsksNothing_data();
    void baseUrlOutsideTheRuleAsksNothing();

    void connectionKeepsToTheRule();

private:
    QTemporaryDir m_dir;
};

void TestProviderOrigin::initTestCase()
{
    QVERIFY(m_dir.isValid());
    // The settings tests write QSettings: never the real user's.
    QCoreApplication::setOrganizationName(QStringLiteral("verity-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_providerorigin"));
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.filePath(QStringLiteral("config")));
    // The key from the environment: no desktop keychain is asked.
    qputenv(ProviderConnection::apiKeyVariable, sandboxApiKey.toUtf8());
}

void TestProviderOrigin::providerUrlRule_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("accepted");
    QTest::addColumn<QString>("why"); // part of the refusal

    QTest::newRow("https elsewhere") << QStringLiteral("https://api.stripe.com") << true << QString();
    QTest::newRow("https with a port and prefix")
            << QStringLiteral("https://provider.example:8443/api/") << true << QString();
    QTest::newRow("http to 127.0.0.1") << QStringLiteral("http://127.0.0.1:12111") << true << QString();
    QTest::newRow("http to 127.0.0.2")
            << QStringLiteral("http://127.0.0.2:12111/prefix") << true << QString();
    QTest::newRow("http to localhost") << QStringLiteral("http://localhost:12111") << true << QString();
    QTest::newRow("http to ::1") << QStringLiteral("http://[::1]:12111") << true << QString();
    QTest::newRow("upper case") << QStringLiteral("HTTP://LOCALHOST:12111") << true << QString();
    QTest::newRow("spaces around") << QStringLiteral("  http://127.0.0.1:12111  ") << true << QString();

    QTest::newRow("nothing") << QString() << false << QStringLiteral("no URL given");
    QTest::newRow("file") << QStringLiteral("file:///tmp/provider.json") << false
                          << QStringLiteral("\"file:///tmp/provider.json\" uses file:");
    QTest::newRow("bare path") << QStringLiteral("/tmp/provider.json") << false
                               << QStringLiteral("\"/tmp/provider.json\" has no scheme");
    QTest::newRow("host and port only")
            << QStringLiteral("localhost:12111") << false << QStringLiteral("uses localhost:");
    QTest::newRow("ftp") << QStringLiteral("ftp://127.0.0.1/refunds") << false << QStringLiteral("uses ftp:");
    QTest::newRow("data") << QStringLiteral("data:,hello") << false << QStringLiteral("uses data:");
    QTest::newRow("http elsewhere") << QStringLiteral("http://10.0.0.5:12111") << false
                                    << QStringLiteral(
                                               "\"http://10.0.0.5:12111\" is plain http to another machine");
    QTest::newRow("http to a name") << QStringLiteral("http://provider.example") << false
                                    << QStringLiteral("plain http to another machine");
    QTest::newRow("http to a name like localhost")
            << QStringLiteral("http://localhost.provider.example:12111") << false
            << QStringLiteral("plain http to another machine");
    QTest::newRow("http to every address") << QStringLiteral("http://0.0.0.0:12111") << false
                                           << QStringLiteral("plain http to another machine");
    QTest::newRow("no host") << QStringLiteral("http:///v1") << false << QStringLiteral("names no host");
    QTest::newRow("user and password")
            << QStringLiteral("https://user:secret@api.example") << false
            << QStringLiteral("\"https://user@api.example\" carries a user name or "
                              "password");
    QTest::newRow("query") << QStringLiteral("https://api.example/?account=1") << false
                           << QStringLiteral("has a query or fragment");
    QTest::newRow("fragment") << QStringLiteral("https://api.example/#top") << false
                              << QStringLiteral("has a query or fragment");
    QTest::newRow("not a url") << QStringLiteral("http://[::1") << false << QStringLiteral("is not a URL");
}

void TestProviderOrigin::providerUrlRule()
{
    QFETCH(QString, text);
    QFETCH(bool, accepted);
    QFETCH(QString, why);
    const Expected<QUrl> parsed = parseProviderUrl(text);
    QCOMPARE(parsed.ok(), accepted);
    if (accepted) {
        QCOMPARE(*parsed, QUrl(text.trimmed()));
        QVERIFY(checkProviderUrl(*parsed));
        return;
    }
    QVERIFY2(parsed.message().contains(why), qPrintable(parsed.message()));
    QVERIFY2(parsed.message().endsWith(expectation), qPrintable(parsed.message()));
    QVERIFY2(!parsed.message().contains(QStringLiteral("secret")), qPrintable(parsed.message()));
    // A URL that arrives parsed (the settings, the client) meets the same rule.
    const QUrl tolerant(text.trimmed());
    if (tolerant.isValid())
        QVERIFY(!checkProviderUrl(tolerant));
}

void TestProviderOrigin::sameOrigin_data()
{
    QTest::addColumn<QString>("a");
    QTest::addColumn<QString>("b");
    QTest::addColumn<bool>("same");
    QTest::newRow("another path") << QStringLiteral("http://127.0.0.1:12111/v1")
                                  << QStringLiteral("http://127.0.0.1:12111/x?y") << true;
    QTest::newRow("default port") << QStringLiteral("https://api.example/")
                                  << QStringLiteral("https://api.example:443/v1") << true;
    QTest::newRow("case") << QStringLiteral("http://LocalHost:1") << QStringLiteral("http://localhost:1")
                          << true;
    QTest::newRow("another port") << QStringLiteral("http://127.0.0.1:1")
                                  << QStringLiteral("http://127.0.0.1:2") << false;
    QTest::newRow("another host") << QStringLiteral("http://127.0.0.1:1")
                                  << QStringLiteral("http://localhost:1") << false;
    QTest::newRow("another scheme") << QStringLiteral("http://127.0.0.1:443")
                                    << QStringLiteral("https://127.0.0.1:443") << false;
    QTest::newRow("file") << QStringLiteral("file:///tmp") << QStringLiteral("file:///tmp") << false;
}

void TestProviderOrigin::sameOrigin()
{
    QFETCH(QString, a);
    QFETCH(QString, b);
    QFETCH(bool, same);
    QCOMPARE(verity::sameOrigin(QUrl(a), QUrl(b)), same);
    QCOMPARE(verity::sameOrigin(QUrl(b), QUrl(a)), same);
}

void TestProviderOrigin::lookupRefusesARedirectToAnotherOrigin_data()
{
    // %1: the other server's port, %2: the provider's own.
    QTest::addColumn<QString>("target");
    const QString query = QStringLiteral("/v1/refunds?payment_intent=pi_order1&limit=100");
    QTest::newRow("another port") << QStringLiteral("http://127.0.0.1:%1") + query;
    QTest::newRow("another host") << QStringLiteral("http://localhost:%1") + query;
    QTest::newRow("another scheme") << QStringLiteral("https://127.0.0.1:%2") + query;
    QTest::newRow("a file") << QStringLiteral("file:///etc/hostname");
}

void TestProviderOrigin::lookupRefusesARedirectToAnotherOrigin()
{
    QFETCH(QString, target);
    LoopbackProvider other(emptyList());
    LoopbackProvider provider([&](const QString &, const QByteArray &, int) {
        return LoopbackProvider::Answer{302, {}, fill(target, other, provider).toUtf8()};
    });
    const QString location = fill(target, other, provider);

    const LookupAnswer answer = lookupNow(settingsFor(provider.url()), intentFor(QStringLiteral("key-1")));
    QCOMPARE(lookupVerdictId(answer.verdict), lookupVerdictId(LookupVerdict::CouldNotTell));
    QVERIFY2(answer.reason.contains(
                     QStringLiteral("the provider redirected to %1; Verity sends the API key only to "
                                    "http://127.0.0.1:%2, so it did not follow")
                             .arg(location, portOf(provider))),
             qPrintable(answer.reason));
    // Nothing reached the other origin, and the refusal was not asked again.
    QVERIFY2(other.requests().isEmpty(), qPrintable(other.requests().join(u'\n')));
    QCOMPARE(provider.requests().size(), 1);
    QCOMPARE(provider.authorizations().first(), QByteArray("Bearer ") + sandboxApiKey.toUtf8());

    // The evidence shows the redirect, and who gave it.
    QCOMPARE(answer.exchanges.size(), 1);
    const HttpExchange &exchange = answer.exchanges.first();
    QVERIFY2(exchange.response.startsWith(QStringLiteral("HTTP 302")), qPrintable(exchange.response));
    QVERIFY2(exchange.response.contains(QStringLiteral("Location: ") + location),
             qPrintable(exchange.response));
    QVERIFY2(exchange.response.contains(
                     QStringLiteral("Answered by: http://127.0.0.1:%1/v1/refunds?").arg(portOf(provider))),
             qPrintable(exchange.response));
    QCOMPARE(exchange.answeredBy.port(), provider.url().port());
    QVERIFY(!exchange.request.contains(sandboxApiKey));
}

void TestProviderOrigin::lookupFollowsARedirectWithinTheOrigin()
{
    const QByteArray moved = "/moved/v1/refunds?payment_intent=pi_order1&limit=100";
    LoopbackProvider provider([&](const QString &path, const QByteArray &, int) {
        if (path == u"/v1/refunds")
            return LoopbackProvider::Answer{307, {}, moved};
        return LoopbackProvider::Answer{
                200, listOf(refundJson(QStringLiteral("re_moved"), QStringLiteral("key-1")))};
    });
    const LookupAnswer answer = lookupNow(settingsFor(provider.url()), intentFor(QStringLiteral("key-1")));
    QCOMPARE(lookupVerdictId(answer.verdict), lookupVerdictId(LookupVerdict::Found));
    QCOMPARE(answer.refund->id, QStringLiteral("re_moved"));
    QCOMPARE(provider.requests(),
             (QStringList{QStringLiteral("GET /v1/refunds"), QStringLiteral("GET /moved/v1/refunds")}));

    // The request line is what was asked; the evidence also names the URL that answered.
    QCOMPARE(answer.exchanges.size(), 1);
    const HttpExchange &exchange = answer.exchanges.first();
    QVERIFY(exchange.request.startsWith(QStringLiteral("GET %1/v1/refunds?").arg(provider.url().toString())));
    const QString answeredBy = provider.url().toString() + QString::fromLatin1(moved);
    QCOMPARE(exchange.answeredBy.toString(QUrl::FullyEncoded), answeredBy);
    QVERIFY2(exchange.response.startsWith(QStringLiteral("HTTP 200 Loopback\nAnswered by: ") + answeredBy
                                          + u'\n'),
             qPrintable(exchange.response));
}

void TestProviderOrigin::lookupStopsAtARedirectLoop()
{
    LoopbackProvider provider(redirectTo("/v1/refunds?payment_intent=pi_order1&limit=100"));
    const LookupAnswer answer = lookupNow(settingsFor(provider.url()), intentFor(QStringLiteral("key-1")));
    QCOMPARE(lookupVerdictId(answer.verdict), lookupVerdictId(LookupVerdict::CouldNotTell));
    QVERIFY2(answer.reason.contains(QStringLiteral("the provider kept redirecting")),
             qPrintable(answer.reason));
    // Followed a few times, within the origin, and not asked again: the lookup's own retries
    // would ask the whole chain once per attempt. Qt may send a GET once more on its own when
    // the server closed the connection it was about to reuse (seen on a loaded machine), so the
    // bound allows that, never a second chain.
    QVERIFY2(provider.requests().size() > 1
                     && provider.requests().size() < 2 * (providerhttp::maxRedirects + 1),
             qPrintable(provider.requests().join(u'\n')));
    QCOMPARE(answer.exchanges.size(), 1);
}

void TestProviderOrigin::refundPostIsNeverRedirected_data()
{
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("target"); // %1: the other server's port, %2: the provider's own
    QTest::newRow("307 elsewhere") << 307 << QStringLiteral("http://127.0.0.1:%1/v1/refunds");
    QTest::newRow("302 within the origin") << 302 << QStringLiteral("http://127.0.0.1:%2/v2/refunds");
}

void TestProviderOrigin::refundPostIsNeverRedirected()
{
    QFETCH(int, status);
    QFETCH(QString, target);
    LoopbackProvider other(emptyList());
    LoopbackProvider provider([&](const QString &, const QByteArray &, int) {
        return LoopbackProvider::Answer{status, {}, fill(target, other, provider).toUtf8()};
    });
    const RefundAttempt attempt = refundNow(settingsFor(provider.url()), intentFor(QStringLiteral("key-1")));
    // Today's rule for an answer below 500 that is no key conflict: refused, never followed.
    QCOMPARE(int(attempt.kind), int(RefundAttempt::Kind::Refused));
    QCOMPARE(attempt.httpStatus, status);
    QVERIFY2(attempt.reason.contains(QStringLiteral("redirected to ") + fill(target, other, provider)),
             qPrintable(attempt.reason));
    QCOMPARE(provider.requests().size(), 1);
    QVERIFY(other.requests().isEmpty());
    QCOMPARE(attempt.exchanges.size(), 1);
    QVERIFY(attempt.exchanges.first().response.contains(
            QStringLiteral("Answered by: %1/v1/refunds").arg(provider.url().toString())));
}

void TestProviderOrigin::statementRefusesARedirectToAnotherOrigin()
{
    LoopbackProvider other(emptyList());
    LoopbackProvider provider([&](const QString &, const QByteArray &, int) {
        return LoopbackProvider::Answer{302, {}, other.url().toString().toUtf8() + "/v1/refunds?limit=100"};
    });
    const StatementAnswer answer =
            StatementFetch::run(settingsFor(provider.url()), march2026(), {QStringLiteral("acct_a")});
    QVERIFY(!answer.ok());
    QVERIFY2(answer.error->message.contains(
                     QStringLiteral("the provider redirected to %1/v1/refunds?limit=100; Verity sends "
                                    "the API key only to %2, so it did not follow (GET %2/v1/refunds)")
                             .arg(other.url().toString(), provider.url().toString())),
             qPrintable(answer.error.value_or(Error{}).message));
    QVERIFY(answer.statement.refunds.isEmpty());
    QCOMPARE(provider.requests().size(), 1);
    QVERIFY(other.requests().isEmpty());
}

void TestProviderOrigin::evidenceNamesTheUrlThatAnswered()
{
    InProcessSandbox sandbox;
    SandboxHttp http(sandbox.url());
    QCOMPARE(http.createAccount(QStringLiteral("acct_shop"), 10000).status, 200);
    QCOMPARE(http.createPayment(QStringLiteral("pi_order1"), 5000, QStringLiteral("acct_shop")).status, 200);
    const RefundAttempt made = refundNow(settingsFor(sandbox.url()), intentFor(QStringLiteral("key-1")));
    QCOMPARE(int(made.kind), int(RefundAttempt::Kind::Accepted));
    QCOMPARE(made.exchanges.first().answeredBy.toString(),
             sandbox.url().toString() + QStringLiteral("/v1/refunds"));
    QVERIFY(made.exchanges.first().response.contains(
            QStringLiteral("\nAnswered by: %1/v1/refunds\n").arg(sandbox.url().toString())));

    const LookupAnswer answer = lookupNow(settingsFor(sandbox.url()), intentFor(QStringLiteral("key-1")));
    QCOMPARE(lookupVerdictId(answer.verdict), lookupVerdictId(LookupVerdict::Found));
    const HttpExchange &exchange = answer.exchanges.first();
    const QString asked = exchange.request.section(u'\n', 0, 0).section(u' ', 1);
    QCOMPARE(exchange.answeredBy.toString(QUrl::FullyEncoded), asked);
    QVERIFY2(exchange.response.startsWith(QStringLiteral("HTTP 200")), qPrintable(exchange.response));
    QCOMPARE(exchange.response.section(u'\n', 1, 1), QStringLiteral("Answered by: ") + asked);
}

void TestProviderOrigin::baseUrlOutsideTheRuleAsksNothing_data()
{
    QTest::addColumn<QString>("base"); // %1: a folder holding v1/refunds, %2: a loopback provider's port
    QTest::addColumn<QString>("why");
    QTest::newRow("a file") << QStringLiteral("file://%1") << QStringLiteral("uses file:");
    QTest::newRow("user info") << QStringLiteral("http://user:pass@127.0.0.1:%2")
                               << QStringLiteral("user name or password");
    QTest::newRow("ftp") << QStringLiteral("ftp://127.0.0.1:%2") << QStringLiteral("uses ftp:");
}

void TestProviderOrigin::baseUrlOutsideTheRuleAsksNothing()
{
    QFETCH(QString, base);
    QFETCH(QString, why);
    // What a file or a server there would answer: an empty list, "not performed".
    const QString folder = m_dir.filePath(QStringLiteral("provider"));
    QVERIFY(QDir().mkpath(folder + QStringLiteral("/v1")));
    QFile file(folder + QStringLiteral("/v1/refunds"));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(listOf({}));
    file.close();
    LoopbackProvider provider(emptyList());
    const ProviderSettings settings =
            settingsFor(QUrl(QString(base)
                                     .replace(QStringLiteral("%1"), folder)
                                     .replace(QStringLiteral("%2"), portOf(provider))));

    const LookupAnswer answer = lookupNow(settings, intentFor(QStringLiteral("key-1")));
    QCOMPARE(lookupVerdictId(answer.verdict), lookupVerdictId(LookupVerdict::CouldNotTell));
    QVERIFY2(answer.reason.startsWith(QStringLiteral("nothing was asked: the provider URL \"")),
             qPrintable(answer.reason));
    QVERIFY2(answer.reason.contains(why) && answer.reason.endsWith(expectation), qPrintable(answer.reason));
    QVERIFY(answer.exchanges.isEmpty());

    const RefundAttempt attempt = refundNow(settings, intentFor(QStringLiteral("key-1")));
    QCOMPARE(int(attempt.kind), int(RefundAttempt::Kind::Refused));
    QVERIFY2(attempt.reason.startsWith(QStringLiteral("not sent: the provider URL"))
                     && attempt.reason.contains(why),
             qPrintable(attempt.reason));
    QVERIFY(attempt.exchanges.isEmpty());

    const StatementAnswer statement = StatementFetch::run(settings, Period{1772323200000, 1775001600000}, {});
    QVERIFY(!statement.ok());
    QVERIFY2(statement.error->message.contains(why), qPrintable(statement.error.value_or(Error{}).message));
    QVERIFY(provider.requests().isEmpty());
}

void TestProviderOrigin::connectionKeepsToTheRule()
{
    Expected<std::unique_ptr<Store>> store = openStore(m_dir.filePath(QStringLiteral("console.sqlite")));
    QVERIFY_OK(store);
    const QString good = QStringLiteral("http://127.0.0.1:12111");
    {
        ProviderConnection connection(**store);
        QVERIFY(connection.save(QUrl(good), QStringLiteral("alice"), QString()));
        QVERIFY(connection.resolver());

        // Refused: nothing changes, in memory or in the settings file.
        for (const QString &bad :
             {QStringLiteral("file:///tmp/provider"), QStringLiteral("http://10.0.0.5:12111"),
              QStringLiteral("http://user:secret@127.0.0.1:12111")}) {
            const Expected<void> saved = connection.save(QUrl(bad), QStringLiteral("mallory"), QString());
            QVERIFY2(!saved, qPrintable(bad));
            QVERIFY2(saved.message().endsWith(expectation), qPrintable(saved.message()));
            QVERIFY2(!saved.message().contains(QStringLiteral("secret")), qPrintable(saved.message()));
            QCOMPARE(connection.baseUrl(), QUrl(good));
            QCOMPARE(connection.operatorName(), QStringLiteral("alice"));
            QCOMPARE(QSettings().value(QStringLiteral("provider/baseUrl")).toString(), good);
        }
        // A name that would read as something else in the audit log is refused the same way.
        const Expected<void> named = connection.save(QUrl(good), QStringLiteral("ali\u202Ece"), QString());
        QVERIFY(!named);
        QVERIFY2(named.message().startsWith(QStringLiteral("Your name holds U+202E")),
                 qPrintable(named.message()));
        QCOMPARE(connection.operatorName(), QStringLiteral("alice"));
    }

    // A settings file written by hand, or before the rule: the URL is not used, and why is said.
    QSettings().setValue(QStringLiteral("provider/baseUrl"), QStringLiteral("http://10.0.0.5:12111"));
    ProviderConnection connection(**store);
    bool loaded = false;
    connection.load([&loaded] { loaded = true; });
    QVERIFY(loaded);
    QVERIFY(connection.baseUrl().isEmpty());
    QVERIFY(!connection.resolver());
    QVERIFY2(connection.urlProblem().startsWith(QStringLiteral("The saved provider URL is not used: "
                                                               "\"http://10.0.0.5:12111\" is plain http")),
             qPrintable(connection.urlProblem()));

    QSettings().setValue(QStringLiteral("provider/baseUrl"), good);
    connection.load();
    QCOMPARE(connection.baseUrl(), QUrl(good));
    QVERIFY(connection.resolver());
    QVERIFY(connection.urlProblem().isEmpty());
}

QTEST_GUILESS_MAIN(TestProviderOrigin)
#include "tst_providerorigin.moc"
