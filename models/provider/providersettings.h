#pragma once
// Where a system is asked and how patiently: the settings every request to it carries.

#include <QString>
#include <QUrl>

namespace verity {

struct ProviderSettings
{
    // "http://127.0.0.1:12111" for `verity sandbox`; a path prefix is kept. Only a URL that
    // checkProviderUrl() accepts is ever asked, and the key goes to its origin alone.
    QUrl baseUrl;
    QString apiKey; // sent as "Authorization: Bearer <key>"
    int timeoutMs = 5000; // per HTTP request: no byte moving for this long ends it
    int maxLookupAttempts = 4; // per page of a lookup, the first try included
    int backoffBaseMs = 200;
    int backoffCapMs = 3000;
    // Each seller is a connected account and its payments are direct charges on it: requests
    // about a refund name the seller's account (Stripe-Account). Off: payments are the
    // platform's (destination charges), as in the sandbox's demo.
    bool connectedAccounts = false;
    // How long the provider keeps an idempotency key (Stripe: 24 hours). After that, the same
    // key is a new request to it, so repeating a write with it needs a fresh lookup first.
    int keyRetentionHours = 24;
};

} // namespace verity
