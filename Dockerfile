# Mailstead in a container: the compiled binary alone, run as a user that is not root.
#   docker build -t mailstead .
#   docker run -d --name mailstead -p 3000:3000 -p 25:25 -p 587:587 -p 465:465 \
#     -v mailstead-data:/data -e MAILSTEAD_HOSTNAME=mail.example.com \
#     -e MAILSTEAD_PUBLIC_URL=https://mail.example.com mailstead

# Build: Node for npm (which brings Bun, pinned in package.json), then one executable.
FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && mkdir /empty-data

# Run: glibc and libstdc++, nothing else; the distroless image's `nonroot` user (65532).
FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /src/dist/mailstead /usr/local/bin/mailstead
# The volume's mount point, owned by the user the server runs as.
COPY --from=build --chown=nonroot:nonroot /empty-data /data
# The SMTP ports are set, not left at their defaults: the image publishes these, so a listener that
# cannot bind one must fail loudly (/health 503), never move to 2525 as `npm start` would.
ENV MAILSTEAD_DATA_DIR=/data \
    MAILSTEAD_HTTP_HOST=0.0.0.0 \
    MAILSTEAD_SMTP_HOST=0.0.0.0 \
    MAILSTEAD_MX_PORT=25 \
    MAILSTEAD_RELAY_PORT=587 \
    MAILSTEAD_RELAY_TLS_PORT=465
USER nonroot
VOLUME /data
# HTTP API; SMTP: MX (bounces, complaints), submission with STARTTLS, submission over TLS.
EXPOSE 3000 25 587 465
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 CMD ["/usr/local/bin/mailstead", "health"]
ENTRYPOINT ["/usr/local/bin/mailstead"]
CMD ["serve"]
