#pragma once
// The provider client as the tests drive it: settings for a provider on loopback, a refund
// intent, and a request made and waited for. Shared so that every test asks alike.

#include "provider/providerclient.h"

#include <QString>
#include <QUrl>

namespace verity::test {

// The key the sandbox accepts unless told otherwise (`verity sandbox` prints the same).
inline const QString sandboxApiKey = QStringLiteral("sk_test_sandbox");

// Settings for a provider the test runs on 127.0.0.1 (the sandbox, or a scripted stand-in):
// the sandbox's key, three tries a lookup page, and a short backoff, so a failing case ends
// quickly. `timeoutMs` is short for the tests of a stalled answer.
inline ProviderSettings settingsFor(const QUrl &url, int timeoutMs = 3000)
{
    ProviderSettings settings;
    settings.baseUrl = url;
    settings.apiKey = sandboxApiKey;
    settings.timeoutMs = timeoutMs;
    settings.maxLookupAttempts = 3;
    settings.backoffBaseMs = 20;
    settings.backoffCapMs = 60;
    return settings;
}

// A refund as the console asks for one: the customer asked, for ticket T-1.
inline RefundIntent intentFor(const QString &key, qint64 amount = 1200,
                              const QString &paymentIntent = QStringLiteral("pi_order1"))
{
    RefundIntent intent;
    intent.intentKey = key;
    intent.paymentIntent = paymentIntent;
    intent.amountCents = amount;
    intent.reason = QStringLiteral("requested_by_customer");
    intent.metadata.insert(QStringLiteral("ticket_id"), QStringLiteral("T-1"));
    return intent;
}

// One refund POST, waited for.
inline RefundAttempt refundNow(ProviderClient &client, const RefundIntent &intent)
{
    RefundOperation *operation = client.refund(intent);
    const RefundAttempt attempt = ProviderClient::waitFor(operation);
    operation->deleteLater();
    return attempt;
}

inline RefundAttempt refundNow(const ProviderSettings &settings, const RefundIntent &intent)
{
    ProviderClient client(settings);
    return refundNow(client, intent);
}

// One lookup of the intent's refund, waited for.
inline LookupAnswer lookupNow(ProviderClient &client, const RefundIntent &intent)
{
    LookupOperation *operation = client.lookup(intent);
    const LookupAnswer answer = ProviderClient::waitFor(operation);
    operation->deleteLater();
    return answer;
}

inline LookupAnswer lookupNow(const ProviderSettings &settings, const RefundIntent &intent)
{
    ProviderClient client(settings);
    return lookupNow(client, intent);
}

} // namespace verity::test
