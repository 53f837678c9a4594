// The sandbox's endpoints. Each checks its parameters first (a refusal there is not stored
// for an idempotency key) and then executes inside the transaction SandboxApi::post opened.

#include "domain/money.h"
#include "sandboxapi.h"

#include <QRegularExpression>

namespace verity {

namespace {

const QStringList refundReasons = {QStringLiteral("duplicate"), QStringLiteral("fraudulent"),
                                   QStringLiteral("requested_by_customer")};

std::optional<SandboxError> checkObjectId(const QString &param, const QString &id)
{
    static const QRegularExpression valid(QStringLiteral("^[A-Za-z0-9_-]{1,100}$"));
    if (valid.match(id).hasMatch())
        return std::nullopt;
    return SandboxError::invalid(
            param,
            QStringLiteral("%1 must be 1 to 100 letters, digits, '_' or '-'; got '%2'.").arg(param, id));
}

std::variant<QString, SandboxError> parseCurrency(const SandboxForm &form)
{
    if (!form.has(QStringLiteral("currency")))
        return QStringLiteral("usd");
    static const QRegularExpression valid(QStringLiteral("^[A-Za-z]{3}$"));
    const QString currency = form.value(QStringLiteral("currency"));
    if (!valid.match(currency).hasMatch()) {
        return SandboxError::invalid(
                QStringLiteral("currency"),
                QStringLiteral("currency must be a three-letter ISO code such as usd; got '%1'.")
                        .arg(currency));
    }
    return currency.toLower();
}

} // namespace

SandboxError unknownParameter(const QString &name)
{
    return SandboxError::invalid(name, QStringLiteral("Received unknown parameter: %1").arg(name));
}

const QStringList &createdFilters()
{
    static const QStringList filters = {QStringLiteral("created[gte]"), QStringLiteral("created[gt]"),
                                        QStringLiteral("created[lte]"), QStringLiteral("created[lt]")};
    return filters;
}

// Stripe's created[...] filters of a list, each a whole number of unix seconds.
std::variant<SandboxCreatedRange, SandboxError> parseCreated(const SandboxForm &query)
{
    static const QRegularExpression seconds(
            QStringLiteral("^-?[0-9]{1,15}$")); // 15 digits: +1 cannot overflow
    SandboxCreatedRange range;
    for (const QString &param : createdFilters()) {
        if (!query.has(param))
            continue;
        const QString text = query.value(param);
        if (!seconds.match(text).hasMatch()) {
            return SandboxError::invalid(
                    param,
                    QStringLiteral("%1 must be a whole number of unix seconds; got '%2'.").arg(param, text));
        }
        const qint64 value = text.toLongLong();
        if (param == u"created[gte]")
            range.first = qMax(range.first, value);
        else if (param == u"created[gt]")
            range.first = qMax(range.first, value + 1);
        else if (param == u"created[lte]")
            range.last = qMin(range.last, value);
        else
            range.last = qMin(range.last, value - 1);
    }
    return range;
}

std::variant<SandboxListQuery, SandboxError> parseListQuery(const SandboxForm &query,
                                                            const QStringList &filters)
{
    const QString unknown =
            query.firstUnknown(QStringList{QStringLiteral("limit"), QStringLiteral("starting_after")}
                               + createdFilters() + filters);
    if (!unknown.isEmpty())
        return unknownParameter(unknown);
    std::variant<int, SandboxError> limit = parseLimit(query);
    if (const auto *error = std::get_if<SandboxError>(&limit))
        return *error;
    std::variant<SandboxCreatedRange, SandboxError> created = parseCreated(query);
    if (const auto *error = std::get_if<SandboxError>(&created))
        return *error;
    return SandboxListQuery{std::get<int>(limit), query.value(QStringLiteral("starting_after")),
                            std::get<SandboxCreatedRange>(created)};
}

SandboxApi::Result SandboxApi::createAccount(const SandboxForm &form)
{
    const QString unknown = form.firstUnknown({QStringLiteral("id"), QStringLiteral("name"),
                                               QStringLiteral("balance"), QStringLiteral("currency")});
    if (!unknown.isEmpty())
        return refused(unknownParameter(unknown));
    SandboxAccount account;
    account.id = form.has(QStringLiteral("id")) ? form.value(QStringLiteral("id"))
                                                : randomSandboxId(QStringLiteral("acct_"));
    if (std::optional<SandboxError> error = checkObjectId(QStringLiteral("id"), account.id))
        return refused(*error);
    account.name = form.has(QStringLiteral("name")) ? form.value(QStringLiteral("name")) : account.id;
    qint64 balance = 0;
    if (form.has(QStringLiteral("balance"))) {
        std::variant<qint64, SandboxError> parsed =
                parseAmount(QStringLiteral("balance"), form.value(QStringLiteral("balance")), true);
        if (const auto *error = std::get_if<SandboxError>(&parsed))
            return refused(*error);
        balance = std::get<qint64>(parsed);
    }
    std::variant<QString, SandboxError> currency = parseCurrency(form);
    if (const auto *error = std::get_if<SandboxError>(&currency))
        return refused(*error);
    account.currency = std::get<QString>(currency);
    account.created = nowSeconds();

    Expected<bool> inserted = m_state.insertAccount(account, balance, account.created);
    if (!inserted)
        return refused(internalError(inserted.message()));
    if (!*inserted) {
        return failedWhile(SandboxError::invalid(
                QStringLiteral("id"),
                QStringLiteral("An account with id '%1' already exists.").arg(account.id),
                QStringLiteral("resource_already_exists")));
    }
    return ok(accountBody(account));
}

SandboxApi::Result SandboxApi::createPaymentIntent(const SandboxForm &form)
{
    const QString unknown = form.firstUnknown({QStringLiteral("id"), QStringLiteral("amount"),
                                               QStringLiteral("currency"), QStringLiteral("account")});
    if (!unknown.isEmpty())
        return refused(unknownParameter(unknown));
    SandboxPayment payment;
    payment.id = form.has(QStringLiteral("id")) ? form.value(QStringLiteral("id"))
                                                : randomSandboxId(QStringLiteral("pi_"));
    if (std::optional<SandboxError> error = checkObjectId(QStringLiteral("id"), payment.id))
        return refused(*error);
    if (!form.has(QStringLiteral("amount")))
        return refused(SandboxError::invalid(QStringLiteral("amount"),
                                             QStringLiteral("Missing required param: amount."),
                                             QStringLiteral("parameter_missing")));
    std::variant<qint64, SandboxError> amount =
            parseAmount(QStringLiteral("amount"), form.value(QStringLiteral("amount")));
    if (const auto *error = std::get_if<SandboxError>(&amount))
        return refused(*error);
    payment.amount = std::get<qint64>(amount);
    std::variant<QString, SandboxError> currency = parseCurrency(form);
    if (const auto *error = std::get_if<SandboxError>(&currency))
        return refused(*error);
    payment.currency = std::get<QString>(currency);
    payment.account = form.value(QStringLiteral("account"));
    if (payment.account.isEmpty()) {
        return refused(SandboxError::invalid(
                QStringLiteral("account"),
                QStringLiteral("Missing required param: account (the seller account whose "
                               "balance refunds of this payment debit)."),
                QStringLiteral("parameter_missing")));
    }
    payment.metadata = form.metadata();
    if (std::optional<SandboxError> error = checkMetadata(payment.metadata))
        return refused(*error);
    payment.created = nowSeconds();

    Expected<std::optional<SandboxAccount>> account = m_state.account(payment.account);
    if (!account)
        return refused(internalError(account.message()));
    if (!*account) {
        return failedWhile(SandboxError::missing(
                QStringLiteral("account"), QStringLiteral("No such account: '%1'").arg(payment.account)));
    }
    Expected<bool> inserted = m_state.insertPayment(payment);
    if (!inserted)
        return refused(internalError(inserted.message()));
    if (!*inserted) {
        return failedWhile(SandboxError::invalid(
                QStringLiteral("id"),
                QStringLiteral("A payment intent with id '%1' already exists.").arg(payment.id),
                QStringLiteral("resource_already_exists")));
    }
    return ok(paymentIntentBody(payment));
}

SandboxApi::Result SandboxApi::createRefund(const SandboxForm &form)
{
    const QString unknown = form.firstUnknown(
            {QStringLiteral("payment_intent"), QStringLiteral("amount"), QStringLiteral("reason")});
    if (!unknown.isEmpty())
        return refused(unknownParameter(unknown));
    const QString paymentIntent = form.value(QStringLiteral("payment_intent"));
    if (paymentIntent.isEmpty()) {
        return refused(SandboxError::invalid(
                QStringLiteral("payment_intent"),
                QStringLiteral("Missing required param: payment_intent (the payment to refund)."),
                QStringLiteral("parameter_missing")));
    }
    std::optional<qint64> amount;
    if (form.has(QStringLiteral("amount"))) {
        std::variant<qint64, SandboxError> parsed =
                parseAmount(QStringLiteral("amount"), form.value(QStringLiteral("amount")));
        if (const auto *error = std::get_if<SandboxError>(&parsed))
            return refused(*error);
        amount = std::get<qint64>(parsed);
    }
    const QString reason = form.value(QStringLiteral("reason"));
    if (form.has(QStringLiteral("reason")) && !refundReasons.contains(reason)) {
        return refused(SandboxError::invalid(QStringLiteral("reason"),
                                             QStringLiteral("Invalid reason '%1': must be one of %2.")
                                                     .arg(reason, refundReasons.join(QStringLiteral(", ")))));
    }
    const SandboxMetadata metadata = form.metadata();
    if (std::optional<SandboxError> error = checkMetadata(metadata))
        return refused(*error);

    // Execution: from here on a refusal is the answer to this request, and stored for its key.
    Expected<std::optional<SandboxPayment>> payment = m_state.payment(paymentIntent);
    if (!payment)
        return refused(internalError(payment.message()));
    if (!*payment) {
        return failedWhile(
                SandboxError::missing(QStringLiteral("payment_intent"),
                                      QStringLiteral("No such payment_intent: '%1'").arg(paymentIntent)));
    }
    const qint64 refundable = qMax<qint64>(0, (*payment)->amount - (*payment)->amountRefunded);
    const QString currency = (*payment)->currency.toUpper();
    if (!amount && refundable == 0) {
        return failedWhile(SandboxError::invalid(
                QStringLiteral("amount"),
                QStringLiteral("Payment %1 has already been refunded in full.").arg(paymentIntent),
                QStringLiteral("charge_already_refunded")));
    }
    if (amount && *amount > refundable) {
        return failedWhile(SandboxError::invalid(
                QStringLiteral("amount"),
                QStringLiteral("Refund amount (%1) is greater than what remains refundable on %2 (%3).")
                        .arg(formatMoney(*amount, currency), paymentIntent,
                             formatMoney(refundable, currency)),
                QStringLiteral("amount_too_large")));
    }

    SandboxRefund refund;
    refund.id = m_options.derivedRefundIds
            ? derivedSandboxId(QStringLiteral("re_"),
                               QStringLiteral("refund|%1|%2|%3")
                                       .arg(paymentIntent, metadata.value(QStringLiteral("intent_key")))
                                       .arg((*payment)->amountRefunded))
            : randomSandboxId(QStringLiteral("re_"));
    refund.paymentIntent = paymentIntent;
    refund.amount = amount.value_or(refundable);
    refund.currency = (*payment)->currency;
    refund.reason = reason;
    refund.created = nowSeconds();
    refund.metadata = metadata;
    Expected<bool> inserted = m_state.insertRefund(refund, (*payment)->account);
    if (!inserted)
        return refused(internalError(inserted.message()));
    return ok(refundBody(refund), true);
}

SandboxApi::Result SandboxApi::retrieveRefund(const QString &id)
{
    Expected<std::optional<SandboxRefund>> refund = m_state.refund(id);
    if (!refund)
        return refused(internalError(refund.message()));
    if (!*refund) {
        SandboxError error =
                SandboxError::missing(QStringLiteral("id"), QStringLiteral("No such refund: '%1'").arg(id));
        error.status = 404;
        return refused(error);
    }
    return ok(refundBody(**refund));
}

SandboxApi::Result SandboxApi::listRefunds(const SandboxForm &query)
{
    const std::variant<SandboxListQuery, SandboxError> parsed =
            parseListQuery(query, {QStringLiteral("payment_intent")});
    if (const auto *error = std::get_if<SandboxError>(&parsed))
        return refused(*error);
    const SandboxListQuery &list = std::get<SandboxListQuery>(parsed);
    const QString paymentIntent = query.value(QStringLiteral("payment_intent"));
    if (query.has(QStringLiteral("payment_intent"))) {
        Expected<std::optional<SandboxPayment>> payment = m_state.payment(paymentIntent);
        if (!payment)
            return refused(internalError(payment.message()));
        if (!*payment) {
            return refused(
                    SandboxError::missing(QStringLiteral("payment_intent"),
                                          QStringLiteral("No such payment_intent: '%1'").arg(paymentIntent)));
        }
    }
    Expected<std::optional<SandboxPage<SandboxRefund>>> page =
            m_state.refunds(paymentIntent, list.limit, list.startingAfter, list.created);
    if (!page)
        return refused(internalError(page.message()));
    if (!*page) {
        return refused(SandboxError::missing(QStringLiteral("starting_after"),
                                             QStringLiteral("No such refund: '%1'").arg(list.startingAfter)));
    }
    return ok(listBody((*page)->items, &writeRefund, (*page)->hasMore, QLatin1StringView("/v1/refunds")));
}

std::variant<SandboxAccount, SandboxError> SandboxApi::accountOfHeader(const QString &account)
{
    if (account.isEmpty()) {
        return SandboxError::invalid(
                QStringLiteral("Stripe-Account"),
                QStringLiteral("Name the seller account in the header 'Stripe-Account: <account id>'; "
                               "the sandbox keeps no platform balance."));
    }
    Expected<std::optional<SandboxAccount>> known = m_state.account(account);
    if (!known)
        return internalError(known.message());
    if (!*known) {
        return SandboxError{
                403, QStringLiteral("invalid_request_error"), QStringLiteral("account_invalid"),
                QStringLiteral("The provided key does not have access to account '%1' (or that account "
                               "does not exist).")
                        .arg(account),
                QStringLiteral("Stripe-Account")};
    }
    return **known;
}

SandboxApi::Result SandboxApi::retrieveBalance(const QString &account, const SandboxForm &query)
{
    const QString unknown = query.firstUnknown({});
    if (!unknown.isEmpty())
        return refused(unknownParameter(unknown));
    const std::variant<SandboxAccount, SandboxError> known = accountOfHeader(account);
    if (const auto *error = std::get_if<SandboxError>(&known))
        return refused(*error);
    Expected<qint64> balance = m_state.balance(account);
    if (!balance)
        return refused(internalError(balance.message()));
    return ok(balanceBody(*balance, std::get<SandboxAccount>(known).currency));
}

SandboxApi::Result SandboxApi::listBalanceTransactions(const QString &account, const SandboxForm &query)
{
    const std::variant<SandboxListQuery, SandboxError> parsed = parseListQuery(query, {});
    if (const auto *error = std::get_if<SandboxError>(&parsed))
        return refused(*error);
    const SandboxListQuery &list = std::get<SandboxListQuery>(parsed);
    const std::variant<SandboxAccount, SandboxError> known = accountOfHeader(account);
    if (const auto *error = std::get_if<SandboxError>(&known))
        return refused(*error);
    Expected<std::optional<SandboxPage<SandboxBalanceTransaction>>> page =
            m_state.balanceTransactions(account, list.limit, list.startingAfter, list.created);
    if (!page)
        return refused(internalError(page.message()));
    if (!*page) {
        return refused(SandboxError::missing(
                QStringLiteral("starting_after"),
                QStringLiteral("No such balance transaction of %1: '%2'").arg(account, list.startingAfter)));
    }
    return ok(listBody((*page)->items, &writeBalanceTransaction, (*page)->hasMore,
                       QLatin1StringView("/v1/balance_transactions")));
}

} // namespace verity
