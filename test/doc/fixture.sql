-- The doc test's fixture (test/doc/readme_test.sh): the tables README.md's
-- examples start from, before its first block runs CREATE EXTENSION.
-- Deterministic: fixed texts, fixed keys.
--
-- documents(id, subject, body): eight e-mails of an office mailbox. 2 is 1
-- with one sentence revised, 3 replies to 1 and quotes it, 5 is the
-- newsletter 4 with another footer, 8 is a copy of 6 forwarded again.

CREATE TABLE documents (
    id      bigint PRIMARY KEY,
    subject text NOT NULL,
    body    text NOT NULL
);

INSERT INTO documents (id, subject, body) VALUES
(1, 'Q3 budget review',
$$Hi all,

Please find below the summary of the third quarter budget review. Travel
spending came in twelve percent under plan because the regional sales
meeting moved online, while software licences ran eight percent over plan
after the renewal of the design tools. Facilities costs were flat. For the
fourth quarter we propose to keep the hiring freeze in operations, to move
the remaining travel budget to customer visits, and to renegotiate the
licence agreement before it renews in January. Each department head should
send a revised forecast to finance by Friday the twelfth, using the new
template on the shared drive. Questions about the template go to Maria in
the finance office. We will discuss the forecasts at the leadership meeting
on the eighteenth and publish the final budget the week after.

Thanks,
Daniel$$),
(2, 'Q3 budget review (corrected)',
$$Hi all,

Please find below the summary of the third quarter budget review. Travel
spending came in twelve percent under plan because the regional sales
meeting moved online, while software licences ran eight percent over plan
after the renewal of the design tools. Facilities costs were flat. For the
fourth quarter we propose to keep the hiring freeze in operations, to move
the remaining travel budget to customer visits, and to renegotiate the
licence agreement before it renews in January. Each department head should
send a revised forecast to finance by Monday the fifteenth, using the new
template on the shared drive. Questions about the template go to Maria in
the finance office. We will discuss the forecasts at the leadership meeting
on the eighteenth and publish the final budget the week after.

Thanks,
Daniel$$),
(3, 'Re: Q3 budget review',
$$Daniel, operations can live with the freeze until March, but we need the
contractor budget for the warehouse move. I will send our forecast on
Thursday.

Ahmed

> Please find below the summary of the third quarter budget review. Travel
> spending came in twelve percent under plan because the regional sales
> meeting moved online, while software licences ran eight percent over plan
> after the renewal of the design tools. Facilities costs were flat. For the
> fourth quarter we propose to keep the hiring freeze in operations, to move
> the remaining travel budget to customer visits, and to renegotiate the
> licence agreement before it renews in January.$$),
(4, 'Weekly security digest',
$$This week in security: a critical vulnerability in a widely used VPN
appliance is being exploited in the wild, and the vendor has published
patches for all supported versions. Administrators should apply them at
once and rotate any credentials stored on the device. A phishing campaign
impersonating a parcel delivery service targets employees with fake
customs fees; the messages link to a page that asks for card details.
Report such messages with the phishing button rather than deleting them.
Finally, the password manager rollout reaches the finance and legal teams
next Tuesday; training sessions are listed on the intranet.

You receive this digest because you are subscribed to the security list.
To unsubscribe, write to security-digest-leave@example.com.$$),
(5, 'Weekly security digest',
$$This week in security: a critical vulnerability in a widely used VPN
appliance is being exploited in the wild, and the vendor has published
patches for all supported versions. Administrators should apply them at
once and rotate any credentials stored on the device. A phishing campaign
impersonating a parcel delivery service targets employees with fake
customs fees; the messages link to a page that asks for card details.
Report such messages with the phishing button rather than deleting them.
Finally, the password manager rollout reaches the finance and legal teams
next Tuesday; training sessions are listed on the intranet.

Forwarded by the IT help desk. Questions: helpdesk@example.com, extension 4400.$$),
(6, 'Offsite agenda',
$$Team, the offsite is confirmed for the second of October at the lake
house. The bus leaves the main entrance at eight thirty and returns around
six. In the morning we review the roadmap for next year and agree on the
three priorities for each product line; after lunch we split into groups
for the hiring plan, the support process and the customer advisory board.
Please bring your laptop and the notes from your last customer calls. Tell
Priya about dietary requirements by Wednesday.$$),
(7, 'Your order has shipped',
$$Good news: order 5531-2208 has shipped and should arrive within three
business days. Track the parcel with the carrier's reference GB20931174 on
their website. If nobody is at home, the driver leaves a card with the
address of the nearest pick-up point, where the parcel waits for seven
days before it is returned to us.$$),
(8, 'Fwd: Offsite agenda',
$$Team, the offsite is confirmed for the second of October at the lake
house. The bus leaves the main entrance at eight thirty and returns around
six. In the morning we review the roadmap for next year and agree on the
three priorities for each product line; after lunch we split into groups
for the hiring plan, the support process and the customer advisory board.
Please bring your laptop and the notes from your last customer calls. Tell
Priya about dietary requirements by Wednesday.$$);
