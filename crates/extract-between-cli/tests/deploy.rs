//! The container image and the Kubernetes manifests, tested as far as they can be here
//! (images cannot be pulled): the manifests parse and hang together, every probe path and
//! port they name is served, and the command the image runs, with the Deployment's
//! environment, serves those probes.

mod common;

use common::http::{Server, get, request};
use std::path::Path;
use std::process::Stdio;
use yaml_rust2::{Yaml, YamlLoader};

/// The workspace root, where the Dockerfile and `deploy/` live.
fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn manifest(name: &str) -> Yaml {
    let path = root().join("deploy/kubernetes").join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut docs =
        YamlLoader::load_from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(docs.len(), 1, "{name}: one object a file");
    docs.remove(0)
}

fn s(y: &Yaml) -> &str {
    y.as_str().unwrap_or_else(|| panic!("not a string: {y:?}"))
}

fn container(deployment: &Yaml) -> &Yaml {
    let containers = deployment["spec"]["template"]["spec"]["containers"]
        .as_vec()
        .unwrap();
    assert_eq!(containers.len(), 1);
    &containers[0]
}

/// The container's environment, as the process would see it.
fn env_of(c: &Yaml) -> Vec<(String, String)> {
    c["env"]
        .as_vec()
        .unwrap()
        .iter()
        .map(|e| (s(&e["name"]).to_owned(), s(&e["value"]).to_owned()))
        .collect()
}

/// The number a probe's `port` names: a number, or a named container port.
fn probe_port(c: &Yaml, port: &Yaml) -> i64 {
    if let Some(n) = port.as_i64() {
        return n;
    }
    let name = s(port);
    c["ports"]
        .as_vec()
        .unwrap()
        .iter()
        .find(|p| s(&p["name"]) == name)
        .unwrap_or_else(|| panic!("no container port named {name}"))["containerPort"]
        .as_i64()
        .unwrap()
}

/// The final stage of the Dockerfile: its USER, and ENTRYPOINT + CMD as one argv.
fn image_command() -> (String, Vec<String>) {
    let text = std::fs::read_to_string(root().join("Dockerfile")).unwrap();
    let stages = text.lines().filter(|l| l.starts_with("FROM ")).count();
    assert!(stages >= 2, "a multi-stage build");
    let last = text.rsplit("\nFROM ").next().unwrap();
    let field = |key: &str| {
        last.lines()
            .find_map(|l| l.strip_prefix(key))
            .unwrap_or_else(|| panic!("no {key} in the final stage"))
            .trim()
            .to_owned()
    };
    let argv = |json: String| serde_json::from_str::<Vec<String>>(&json).unwrap();
    let mut command = argv(field("ENTRYPOINT "));
    command.extend(argv(field("CMD ")));
    (field("USER "), command)
}

#[test]
fn manifests_parse_and_refer_to_each_other() {
    let deployment = manifest("deployment.yaml");
    let service = manifest("service.yaml");
    let hpa = manifest("hpa.yaml");
    let pdb = manifest("pdb.yaml");
    for (doc, kind) in [
        (&deployment, "Deployment"),
        (&service, "Service"),
        (&hpa, "HorizontalPodAutoscaler"),
        (&pdb, "PodDisruptionBudget"),
    ] {
        assert_eq!(s(&doc["kind"]), kind);
        assert!(!s(&doc["apiVersion"]).is_empty());
    }
    let name = s(&deployment["metadata"]["name"]);
    let labels = &deployment["spec"]["template"]["metadata"]["labels"];
    assert_eq!(deployment["spec"]["selector"]["matchLabels"], *labels);
    assert_eq!(service["spec"]["selector"], *labels);
    assert_eq!(pdb["spec"]["selector"]["matchLabels"], *labels);
    assert_eq!(s(&hpa["spec"]["scaleTargetRef"]["name"]), name);
    assert_eq!(s(&hpa["spec"]["scaleTargetRef"]["kind"]), "Deployment");
    assert_eq!(
        s(&hpa["spec"]["metrics"][0]["resource"]["name"]),
        "cpu",
        "scales on CPU"
    );
    // The Service's target is the container's port.
    let c = container(&deployment);
    let target = &service["spec"]["ports"][0]["targetPort"];
    assert_eq!(probe_port(c, target), 8080);
    let kustomization =
        std::fs::read_to_string(root().join("deploy/kubernetes/kustomization.yaml")).unwrap();
    for file in ["deployment.yaml", "service.yaml", "hpa.yaml", "pdb.yaml"] {
        assert!(
            kustomization.contains(file),
            "{file} not in kustomization.yaml"
        );
    }
}

#[test]
fn the_deployment_is_safe_to_run_and_to_stop() {
    let deployment = manifest("deployment.yaml");
    let pod = &deployment["spec"]["template"]["spec"];
    let c = container(&deployment);
    assert_eq!(pod["securityContext"]["runAsNonRoot"].as_bool(), Some(true));
    assert_ne!(pod["securityContext"]["runAsUser"].as_i64(), Some(0));
    assert_eq!(
        c["securityContext"]["readOnlyRootFilesystem"].as_bool(),
        Some(true)
    );
    assert_eq!(
        c["securityContext"]["allowPrivilegeEscalation"].as_bool(),
        Some(false)
    );
    for kind in ["requests", "limits"] {
        for resource in ["cpu", "memory"] {
            assert!(
                c["resources"][kind][resource].as_str().is_some(),
                "resources.{kind}.{resource}"
            );
        }
    }
    // The grace period outlasts the drain and the shutdown timeout the container is given.
    let env = env_of(c);
    let seconds = |var: &str, default: u64| {
        env.iter()
            .find(|(k, _)| k == var)
            .map_or(default, |(_, v)| v.parse().unwrap())
    };
    let defaults = extract_between_cli::server::ServeArgs::default();
    let needed = seconds("EXTRACT_BETWEEN_DRAIN_SECONDS", defaults.drain_seconds)
        + seconds(
            "EXTRACT_BETWEEN_SHUTDOWN_TIMEOUT",
            defaults.shutdown_timeout,
        );
    let grace = pod["terminationGracePeriodSeconds"].as_i64().unwrap();
    assert!(
        grace as u64 > needed,
        "grace {grace} s, drain + shutdown {needed} s"
    );
    // The memory limit leaves room above the memory budget.
    let budget = seconds(
        "EXTRACT_BETWEEN_MAX_MEMORY_MIB",
        defaults.max_memory_mib as u64,
    );
    let limit = s(&c["resources"]["limits"]["memory"]);
    let limit_mib: u64 = limit.strip_suffix("Mi").unwrap().parse().unwrap();
    assert!(
        limit_mib >= budget + 128,
        "{limit} for a {budget} MiB budget"
    );
    // Every probe the kubelet sends has a path and a port.
    for probe in ["startupProbe", "livenessProbe", "readinessProbe"] {
        let get = &c[probe]["httpGet"];
        assert!(s(&get["path"]).starts_with('/'), "{probe}");
        assert_eq!(probe_port(c, &get["port"]), 8080, "{probe}");
    }
    assert_eq!(s(&c["readinessProbe"]["httpGet"]["path"]), "/readyz");
    assert_eq!(s(&c["livenessProbe"]["httpGet"]["path"]), "/livez");
}

/// The image's command, with the Deployment's arguments and environment (the token file
/// in a temporary directory, the ports free ones), serves every probe the manifests name,
/// requires the token elsewhere, serves /metrics without one on the annotated metrics
/// port, and logs JSON.
#[test]
fn the_image_command_with_the_deployment_environment_serves_the_probes() {
    let (user, command) = image_command();
    assert!(
        !matches!(user.split(':').next(), Some("0" | "root")),
        "the image runs as {user}"
    );
    assert!(command[0].ends_with("/extract-between"), "{command:?}");
    let deployment = manifest("deployment.yaml");
    let c = container(&deployment);
    let args: Vec<String> = c["args"]
        .as_vec()
        .unwrap()
        .iter()
        .map(|a| s(a).to_owned())
        .collect();
    // The Deployment's args replace the image's CMD, and say the same.
    assert_eq!(args, command[1..], "Deployment args and image CMD differ");
    assert_eq!(args[..3], ["serve", "--listen", "0.0.0.0:8080"]);

    let dir = common::scratch::dir();
    std::fs::write(dir.join("tokens"), "deploy-token\n").unwrap();
    let mut env = env_of(c);
    for (k, v) in &mut env {
        if k == "EXTRACT_BETWEEN_AUTH_TOKEN_FILE" {
            let mount = s(&c["volumeMounts"][0]["mountPath"]);
            assert!(
                v.starts_with(mount),
                "the token file is on the Secret's mount"
            );
            *v = dir.join("tokens").to_str().unwrap().to_owned();
        }
        if k == "EXTRACT_BETWEEN_METRICS_LISTEN" {
            assert!(v.ends_with(":9090"), "{v}");
            *v = "127.0.0.1:0".into();
        }
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let listen = format!("127.0.0.1:{port}");
    let run_args: Vec<&str> = args[1..]
        .iter()
        .map(|a| {
            if a == "0.0.0.0:8080" {
                listen.as_str()
            } else {
                a.as_str()
            }
        })
        .collect();
    let env_refs: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let mut server = Server::start_with(&run_args, &env_refs, Stdio::piped());
    for probe in ["startupProbe", "livenessProbe", "readinessProbe"] {
        let path = s(&c[probe]["httpGet"]["path"]);
        assert_eq!(get(&server, path).status, 200, "{probe} {path}");
    }
    assert_eq!(get(&server, "/metrics").status, 401);
    // The scraper's port, as the pod's annotations name it: /metrics without a token.
    let annotations = &deployment["spec"]["template"]["metadata"]["annotations"];
    assert_eq!(s(&annotations["prometheus.io/port"]), "9090");
    let ports = c["ports"].as_vec().unwrap();
    assert!(
        ports
            .iter()
            .any(|p| p["containerPort"].as_i64() == Some(9090))
    );
    let mut line = String::new();
    std::io::BufRead::read_line(&mut server.stdout, &mut line).unwrap();
    let scrape: std::net::SocketAddr = line
        .trim()
        .strip_prefix("metrics on http://")
        .and_then(|rest| rest.strip_suffix("/metrics"))
        .unwrap_or_else(|| panic!("{line:?}"))
        .parse()
        .unwrap();
    let answer = common::http::raw_exchange(
        scrape,
        b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    );
    assert_eq!(answer.status, 200);
    assert!(
        answer
            .text()
            .contains("extract_between_http_requests_total")
    );
    let refused = common::http::raw_exchange(
        scrape,
        b"POST /v1/tools/text-extract-between/versions/1.0.0/execute HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
    );
    assert_eq!(
        refused.status, 404,
        "the metrics port serves /metrics alone"
    );
    let r = request(
        &server,
        "GET",
        "/metrics",
        &[("Authorization", "Bearer deploy-token")],
        b"",
    );
    assert_eq!(r.status, 200);
    server.sigterm();
    server
        .exited_within(std::time::Duration::from_secs(10))
        .unwrap();
    let mut logs = String::new();
    std::io::Read::read_to_string(&mut server.child.stderr.take().unwrap(), &mut logs).unwrap();
    for line in logs.lines() {
        assert!(
            serde_json::from_str::<serde_json::Value>(line).is_ok(),
            "not JSON: {line}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// One image tag everywhere: the Deployment runs what the release pushes to the GitHub
/// container registry and what the Dockerfile and DEPLOY.md build, tagged with the crate's
/// version.
#[test]
fn the_image_tag_is_the_same_in_the_manifests_the_dockerfile_and_the_docs() {
    let tag = format!(
        "ghcr.io/extract-between/extract-between:{}",
        env!("CARGO_PKG_VERSION")
    );
    let deployment = manifest("deployment.yaml");
    assert_eq!(s(&container(&deployment)["image"]), tag);
    let dockerfile = std::fs::read_to_string(root().join("Dockerfile")).unwrap();
    let deploy_doc = std::fs::read_to_string(root().join("docs/DEPLOY.md")).unwrap();
    for (name, text) in [("Dockerfile", &dockerfile), ("docs/DEPLOY.md", &deploy_doc)] {
        let builds: Vec<&str> = text
            .match_indices("docker build -t ")
            .map(|(at, m)| text[at + m.len()..].split_whitespace().next().unwrap())
            .collect();
        assert!(!builds.is_empty(), "{name} says no docker build");
        assert!(
            builds.iter().all(|b| *b == tag),
            "{name}: {builds:?}, not {tag}"
        );
    }
}
