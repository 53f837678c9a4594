#pragma once
// What the refund POST and the lookup share: building a request, writing an exchange down
// as evidence (the key redacted), and reading Stripe-shaped answers.

#include "providerclient.h"

#include <QNetworkReply>
#include <QNetworkRequest>
#include <QUrlQuery>

namespace verity::providerhttp {

// `path` ("/v1/refunds") under the base URL, keeping any path prefix the base has.
QUrl endpoint(const QUrl &baseUrl, const QString &path, const QUrlQuery &query = {});

// The Stripe API version every request asks for (Stripe-Version): what Verity sends and reads
// is built to it, so an account upgraded to a newer default cannot change a shape under it. It
// is the version of the published description the contract test checks the requests and the
// shapes read against (tests/data/stripe-openapi).
inline constexpr char stripeApiVersion[] = "2026-07-29.dahlia";

// Authorization, Accept, Stripe-Version, the per-request transfer timeout, and the redirect policy: every
// request carries the API key, so Qt follows a redirect only within the URL's origin (scheme,
// host and port; SameOriginRedirectPolicy) and a few times at most. Read the answer with
// refusedRedirect() to say in words why one was not followed.
// A non-empty `account` is sent as Stripe-Account: the request is about that connected account.
QNetworkRequest request(const ProviderSettings &settings, const QUrl &url, const QString &account = {});
constexpr int maxRedirects = 5;

// The URL that answered: the request's, or where a redirect within its origin led.
QUrl answeredBy(QNetworkReply *reply);
// Why the answer is not the provider's to read, or nothing when it is: a redirect that was not
// followed (to another origin, to a scheme other than http or https, one too many, or any
// redirect of a POST), or an answer from outside `baseUrl`'s origin. "the provider redirected
// to https://other.example:8443/v1/refunds; Verity sends the API key only to
// http://127.0.0.1:12111, so it did not follow".
std::optional<QString> refusedRedirect(QNetworkReply *reply, const QUrl &baseUrl);

// "POST URL", the headers (the key redacted), a blank line, the body.
QString describeRequest(const QByteArray &method, const QNetworkRequest &request, const QByteArray &body);
// "HTTP 200 OK", "Answered by: URL", the headers, a blank line, the body; or
// "no HTTP answer: <why>".
QString describeResponse(QNetworkReply *reply, const QByteArray &body, const QString &transportReason);

int httpStatus(QNetworkReply *reply); // 0 when no HTTP answer came

// Why no HTTP answer came: "timed out after 300 ms", "connection refused (...)", ...
QString transportReason(QNetworkReply *reply, int timeoutMs);
// True for the errors that prove the request never left this machine.
bool nothingWasSent(QNetworkReply::NetworkError error);

struct ProviderError
{
    QString type;
    QString code;
    QString message;
    QString param;
};
// The {"error": {...}} object of an answer, if it has one.
std::optional<ProviderError> providerError(const QByteArray &body);
// The provider's message, or the status when it gave none: for a reason a person reads.
QString providerMessage(int status, const QByteArray &body);

std::optional<ProviderRefund> refundFrom(const QJsonObject &object);

// Reads (lookups, statements) are retried; these say when and how long to wait.
// True for no answer at all, 429 and 5xx.
bool retryableRead(int status);
// Retry-After in ms, or 0 when the answer gave none.
int retryAfterMs(QNetworkReply *reply);
// Full jitter below the capped exponential bound for the attempts made so far, and no less
// than Retry-After asks (itself capped): clients that failed together do not return together.
int retryDelayMs(const ProviderSettings &settings, int attemptsMade, int retryAfterMs);

// "re_123 of $118.00 (succeeded, created 2026-03-17T14:32:07Z)".
QString describeRefund(const ProviderRefund &refund);

} // namespace verity::providerhttp
