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

SandboxApi::Result SandboxApi::createPaymentIntent(const SandboxForm &form, const QString &onAccount)
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
    // A direct charge is made on the seller's own account (Stripe-Account); a destination
    // charge on the platform names the seller whose balance its refunds debit.
    payment.onAccount = onAccount;
    payment.account = onAccount.isEmpty() ? form.value(QStringLiteral("account")) : onAccount;
    if (!onAccount.isEmpty() && form.has(QStringLiteral("account"))
        && form.value(QStringLiteral("account")) != onAccount) {
        return refused(SandboxError::invalid(
                QStringLiteral("account"),
                QStringLiteral("A payment made on account %1 (Stripe-Account) belongs to it; account "
                               "names %2.")
                        .arg(onAccount, form.value(QStringLiteral("account")))));
    }
    if (payment.account.isEmpty()) {
        return refused(SandboxError::invalid(
                QStringLiteral("account"),
                QStringLiteral("Missing required param: account (the seller account whose "
                               "balance refunds of this payment debit), or make the payment on the "
                               "seller's account with the header 'Stripe-Account: <account id>'."),
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
                QStringLiteral("A payment intent with id '%1' (or its charge) already exists.")
                        .arg(payment.id),
                QStringLiteral("resource_already_exists")));
    }
    Expected<std::optional<SandboxPayment>> made = m_state.payment(payment.id);
    if (!made || !*made)
        return refused(
                internalError(made ? QStringLiteral("the payment just made is missing") : made.message()));
    return ok(paymentIntentBody(**made));
}

std::variant<SandboxPayment, SandboxError> SandboxApi::paymentNamedIn(const SandboxForm &form,
                                                                      const QString &onAccount)
{
    const bool byCharge = form.has(QStringLiteral("charge"));
    if (byCharge == form.has(QStringLiteral("payment_intent"))) {
        return SandboxError::invalid(
                byCharge ? QStringLiteral("charge") : QStringLiteral("payment_intent"),
                byCharge ? QStringLiteral("Name the payment by payment_intent or by charge, not both.")
                         : QStringLiteral("Missing required param: payment_intent or charge (the payment)."),
                byCharge ? QString() : QStringLiteral("parameter_missing"));
    }
    const QString param = byCharge ? QStringLiteral("charge") : QStringLiteral("payment_intent");
    return paymentNamed(param, form.value(param), onAccount);
}

std::variant<SandboxPayment, SandboxError> SandboxApi::paymentNamed(const QString &param, const QString &id,
                                                                    const QString &onAccount)
{
    const bool byCharge = param == u"charge";
    if (!onAccount.isEmpty()) {
        const std::variant<SandboxAccount, SandboxError> known = accountOfHeader(onAccount);
        if (const auto *error = std::get_if<SandboxError>(&known))
            return *error;
    }
    Expected<std::optional<SandboxPayment>> payment =
            byCharge ? m_state.paymentOfCharge(id) : m_state.payment(id);
    if (!payment)
        return internalError(payment.message());
    // A payment on another account is not there for this request, as at Stripe.
    if (!*payment || (*payment)->onAccount != onAccount) {
        QString message = QStringLiteral("No such %1: '%2'").arg(param, id);
        if (*payment && onAccount.isEmpty())
            message += QStringLiteral("; it was made on a connected account: name it in the header "
                                      "'Stripe-Account: <account id>'");
        return SandboxError::missing(param, message);
    }
    return **payment;
}

SandboxApi::Result SandboxApi::retrievePaymentIntent(const QString &id, const QString &onAccount)
{
    const std::variant<SandboxPayment, SandboxError> payment =
            paymentNamed(QStringLiteral("payment_intent"), id, onAccount);
    if (const auto *error = std::get_if<SandboxError>(&payment)) {
        SandboxError notFound = *error;
        notFound.status = notFound.code == u"resource_missing" ? 404 : notFound.status;
        return refused(notFound);
    }
    return ok(paymentIntentBody(std::get<SandboxPayment>(payment)));
}

SandboxApi::Result SandboxApi::searchPaymentIntents(const SandboxForm &query, const QString &onAccount)
{
    const QString unknown =
            query.firstUnknown({QStringLiteral("query"), QStringLiteral("limit"), QStringLiteral("page")});
    if (!unknown.isEmpty())
        return refused(unknownParameter(unknown));
    // metadata['order_id']:'SU-1', either quote, a backslash escaping the quote inside.
    static const QRegularExpression clause(QStringLiteral(
            R"(^\s*metadata\[(['"])([A-Za-z0-9_-]{1,40})\1\]\s*:\s*(['"])((?:\\.|(?!\3).)*)\3\s*$)"));
    const QString text = query.value(QStringLiteral("query"));
    const QRegularExpressionMatch match = clause.match(text);
    if (!match.hasMatch()) {
        return refused(SandboxError::invalid(
                QStringLiteral("query"),
                text.isEmpty() ? QStringLiteral("Missing required param: query.")
                               : QStringLiteral("The sandbox searches payment intents by one metadata value "
                                                "only, written metadata['key']:'value'; got '%1'.")
                                         .arg(text)));
    }
    QString value = match.captured(4);
    value.replace(QRegularExpression(QStringLiteral(R"(\\(.))")), QStringLiteral("\\1"));
    std::variant<int, SandboxError> limit = parseLimit(query);
    if (const auto *error = std::get_if<SandboxError>(&limit))
        return refused(*error);
    int offset = 0;
    if (query.has(QStringLiteral("page"))) {
        static const QRegularExpression page(QStringLiteral("^page_([0-9]{1,9})$"));
        const QRegularExpressionMatch token = page.match(query.value(QStringLiteral("page")));
        if (!token.hasMatch()) {
            return refused(SandboxError::invalid(
                    QStringLiteral("page"),
                    QStringLiteral("page must be the next_page of an earlier search; got '%1'.")
                            .arg(query.value(QStringLiteral("page")))));
        }
        offset = token.captured(1).toInt();
    }
    if (!onAccount.isEmpty()) {
        const std::variant<SandboxAccount, SandboxError> known = accountOfHeader(onAccount);
        if (const auto *error = std::get_if<SandboxError>(&known))
            return refused(*error);
    }
    Expected<SandboxPage<SandboxPayment>> found =
            m_state.searchPayments(match.captured(2), value, onAccount,
                                   nowSeconds() - m_options.searchLagSeconds, std::get<int>(limit), offset);
    if (!found)
        return refused(internalError(found.message()));
    const QString next =
            found->hasMore ? QStringLiteral("page_%1").arg(offset + int(found->items.size())) : QString();
    return ok(searchBody(found->items, &writePaymentIntent, next,
                         QLatin1StringView("/v1/payment_intents/search")));
}

SandboxApi::Result SandboxApi::createRefund(const SandboxForm &form, const QString &onAccount)
{
    const QString unknown = form.firstUnknown({QStringLiteral("payment_intent"), QStringLiteral("charge"),
                                               QStringLiteral("amount"), QStringLiteral("reason")});
    if (!unknown.isEmpty())
        return refused(unknownParameter(unknown));
    const bool byCharge = form.has(QStringLiteral("charge"));
    const QString named = form.value(byCharge ? QStringLiteral("charge") : QStringLiteral("payment_intent"));
    if (byCharge == form.has(QStringLiteral("payment_intent")) || named.isEmpty()) {
        return refused(SandboxError::invalid(
                QStringLiteral("payment_intent"),
                QStringLiteral("Name the payment to refund by payment_intent or by charge (one of them)."),
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
    const std::variant<SandboxPayment, SandboxError> found = paymentNamedIn(form, onAccount);
    if (const auto *error = std::get_if<SandboxError>(&found))
        return error->type == u"api_error" ? refused(*error) : failedWhile(*error);
    const SandboxPayment *payment = &std::get<SandboxPayment>(found);
    const QString paymentIntent = payment->id;
    const qint64 refundable = qMax<qint64>(0, payment->amount - payment->amountRefunded);
    const QString currency = payment->currency.toUpper();
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
                                       .arg(payment->amountRefunded))
            : randomSandboxId(QStringLiteral("re_"));
    refund.paymentIntent = paymentIntent;
    refund.charge = payment->charge;
    refund.onAccount = payment->onAccount;
    refund.amount = amount.value_or(refundable);
    refund.currency = payment->currency;
    refund.reason = reason;
    refund.created = nowSeconds();
    refund.metadata = metadata;
    Expected<bool> inserted = m_state.insertRefund(refund, payment->account);
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

SandboxApi::Result SandboxApi::listRefunds(const SandboxForm &query, const QString &onAccount)
{
    const std::variant<SandboxListQuery, SandboxError> parsed =
            parseListQuery(query, {QStringLiteral("payment_intent"), QStringLiteral("charge")});
    if (const auto *error = std::get_if<SandboxError>(&parsed))
        return refused(*error);
    const SandboxListQuery &list = std::get<SandboxListQuery>(parsed);
    QString paymentIntent;
    if (query.has(QStringLiteral("payment_intent")) || query.has(QStringLiteral("charge"))) {
        const std::variant<SandboxPayment, SandboxError> named = paymentNamedIn(query, onAccount);
        if (const auto *error = std::get_if<SandboxError>(&named))
            return refused(*error);
        paymentIntent = std::get<SandboxPayment>(named).id;
    } else if (!onAccount.isEmpty()) {
        // A connected account lists its own refunds, the platform its own.
        const std::variant<SandboxAccount, SandboxError> known = accountOfHeader(onAccount);
        if (const auto *error = std::get_if<SandboxError>(&known))
            return refused(*error);
    }
    Expected<std::optional<SandboxPage<SandboxRefund>>> page =
            m_state.refunds(paymentIntent, list.limit, list.startingAfter, list.created, onAccount);
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
