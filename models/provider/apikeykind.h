#pragma once
// What kind of Stripe API key is in use, read from its prefix: test or live money, a secret
// key or a restricted one. The console shows it, marks live money plainly, and refuses a write
// with a restricted key before anything is sent (Verity asks a restricted key only to read).

#include <QString>

namespace verity {

struct ApiKeyKind
{
    enum class Mode { None, Test, Live, Unknown } mode = Mode::None;
    bool restricted = false; // rk_…: lookups and reconciliation only

    bool isLive() const { return mode == Mode::Live; }
    // "a live restricted key (rk_live_…wxyz)", "a test secret key (sk_test_…abcd)", "no API key".
    QString describe(const QString &apiKey) const;
    // Why a refund POST with this key is not sent; empty when it may be.
    QString whyNoWrite() const;
};

ApiKeyKind apiKeyKind(const QString &apiKey);

} // namespace verity
